import Foundation
import GRDB
import Prometheus

/// A `StoreTransaction` on SQLite: the GRDB connection inside its transaction, and the outbox its
/// events go to (nil in a read, which publishes nothing). Only the SQLite stores (this folder)
/// open `db`.
struct SQLiteTransaction: StoreTransaction {
    let db: Database
    let outbox: EventOutbox?

    init(_ db: Database, outbox: EventOutbox?) {
        (self.db, self.outbox) = (db, outbox)
    }

    /// A read transaction on `db`, for code still holding a GRDB connection.
    static func reading(_ db: Database) -> SQLiteTransaction {
        SQLiteTransaction(db, outbox: nil)
    }

    @discardableResult
    func publish(_ event: OutgoingEvent) throws -> Int64 {
        guard let outbox else { throw DatabaseError(resultCode: .SQLITE_READONLY, message: "an event published in a read") }
        return try outbox.publish(event, in: db)
    }

    var rooms: any RoomStore { SQLiteRoomStore(db: db) }
    var workspaces: any WorkspaceStore { SQLiteWorkspaceStore(db: db) }
    var messages: any MessageStore { SQLiteMessageStore(db: db) }
    var threads: any ThreadStore { SQLiteThreadStore(db: db) }
    var inspection: any InspectionStore { SQLiteInspectionStore(db: db) }
    var events: any EventStore { SQLiteEventStore(db: db) }
    var saved: any SavedMessageStore { SQLiteSavedMessageStore(db: db) }
    var reactions: any ReactionStore { SQLiteReactionStore(db: db) }
    var pins: any PinStore { SQLitePinStore(db: db) }
    var search: any SearchStore { SQLiteSearchStore(db: db) }
    var files: any StoredFileStore { SQLiteFileStore(db: db) }
    var linkPreviews: any LinkPreviewStore { SQLiteLinkPreviewStore(db: db) }
    var accounts: any AccountStore { SQLiteAccountStore(db: db) }
    var emailConfirmations: any EmailConfirmationStore { SQLiteEmailConfirmationStore(db: db) }
    var statuses: any StatusStore { SQLiteStatusStore(db: db) }
    var twoStep: any TwoStepStore { SQLiteTwoStepStore(db: db) }
    var ledger: any LedgerStore { SQLiteLedgerStore(db: db) }
    var payments: any PaymentStore { SQLitePaymentStore(db: db) }
    var sandboxPayments: any SandboxPaymentStore { SQLiteSandboxPaymentStore(db: db) }
    var audit: any AuditStore { SQLiteAuditStore(db: db) }
    var securityLog: any SecurityLogStore { SQLiteSecurityLogStore(db: db) }
    var readMarks: any ReadMarkStore { SQLiteReadMarkStore(db: db) }
    var notifySettings: any NotifySettingStore { SQLiteNotifySettingStore(db: db) }
    var lastRooms: any LastRoomStore { SQLiteLastRoomStore(db: db) }
    var invitations: any InvitationStore { SQLiteInvitationStore(db: db) }
    var memberships: any MembershipStore { SQLiteMembershipStore(db: db, outbox: outbox) }
    var mail: any MailQueueStore { SQLiteMailQueueStore(db: db) }
    var push: any PushSubscriptionStore { SQLitePushSubscriptionStore(db: db) }
    var slackImport: any SlackImportStore { SQLiteSlackImportStore(db: db) }
    var seed: any SeedStore { SQLiteSeedStore(db: db) }
    var sessions: any SessionRecordStore { SQLiteSessionRecordStore(db: db) }
    var passwordResets: any PasswordResetStore { SQLitePasswordResetStore(db: db) }
    var appSessions: any AppSessionStore { SQLiteAppSessionStore(db: db) }
    var publicIds: any PublicIdStore { SQLitePublicIdStore(db: db) }
    var webhooks: any WebhookStore { SQLiteWebhookStore(db: db) }
    var socialLogins: any SocialLoginStore { SQLiteSocialLoginStore(db: db) }
    var appPasswords: any AppPasswordStore { SQLiteAppPasswordStore(db: db) }
}

extension AppDatabase {
    /// Runs `body` in one write transaction (the writer's turn); its stores' changes and the
    /// events it publishes commit together, or not at all when it throws.
    func write<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) throws -> T) async throws -> T {
        if let postgres { return try await postgres.write(body) }
        let outbox = self.outbox
        return try await writer.write { db in try body(SQLiteTransaction(db, outbox: outbox)) }
    }

    /// Runs `body` in a transaction shared with the writes that arrive at the same time (message
    /// posts: `GroupCommit`), in a savepoint of its own, so its changes and events roll back
    /// alone when it throws and commit with the others.
    func writeTogether<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) throws -> T) async throws -> T {
        if let postgres {
            let started = ContinuousClock.now
            defer { postgresWriteTimes?.record(ContinuousClock.now - started) }
            return try await postgres.write(body)
        }
        let outbox = self.outbox
        return try await groupCommit.write { db in try body(SQLiteTransaction(db, outbox: outbox)) }
    }

    /// Runs `body` in one write transaction on the calling thread (`writeBlocking(_:)`), for
    /// operator commands (an import) whose writes capture state they change; its stores' changes
    /// and the events it publishes commit together, or not at all when it throws.
    func writeNow<T>(_ body: (any StoreTransaction) throws -> T) throws -> T {
        if let postgres { return try postgres.writeNow(body) }
        let outbox = self.outbox
        return try writeBlocking { db in try body(SQLiteTransaction(db, outbox: outbox)) }
    }

    /// Runs `body` in one read transaction on the calling thread (`read(_:)`).
    func query<T>(_ body: (any StoreTransaction) throws -> T) throws -> T {
        if let postgres { return try postgres.queryNow(body) }
        return try read { db in try body(SQLiteTransaction.reading(db)) }
    }

    /// Runs `body` in one read transaction on a reader thread (`readOffLoop(_:)`).
    func queryOffLoop<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) throws -> T) async throws -> T {
        if let postgres { return try await postgres.query(body) }
        return try await readOffLoop { db in try body(SQLiteTransaction.reading(db)) }
    }

    /// `body` answered from memory alone (`tx` nil, on the caller's thread) when every cache it
    /// asks keeps its value, else run again in one read transaction off the loop. Requests
    /// missing at the same moment with the same `key` read once: the others wait for that read
    /// and ask memory again (`SharedMisses`), so `key` names what `body` reads (a page and its
    /// viewer).
    func queryKept<T: Sendable>(sharing key: some Hashable & Sendable,
                                _ body: @escaping @Sendable ((any StoreTransaction)?) throws -> T) async throws -> T {
        try await sharedMisses.answer(key, memory: { try body(nil) }) { [self] in
            if let postgres { return try await postgres.query { tx in try body(tx) } }
            return try await readOffLoop { db in try body(SQLiteTransaction.reading(db)) }
        }
    }
}

extension VersionedCache {
    /// The value kept for `key`, or else what `read` reads in `tx`, kept for next time. Without a
    /// transaction (`tx` nil) only memory answers: a value not kept throws `NotKeptInMemory`.
    func value(for key: Key, in tx: (any StoreTransaction)?,
               orRead read: (any StoreTransaction) throws -> Value) throws -> Value {
        guard let tx else { return try value(for: key, in: nil as Database?) { _ in throw NotKeptInMemory() } }
        guard let sqlite = tx as? SQLiteTransaction else { return try readAndKeep(key, in: tx, read)! }
        return try value(for: key, in: sqlite.db) { db in try read(SQLiteTransaction(db, outbox: sqlite.outbox)) }
    }

    /// The value kept for `key`, or else what `read` reads in one read transaction off the loop
    /// (`queryOffLoop`), kept for next time.
    func value(for key: Key, from database: AppDatabase,
               orQuery read: @escaping @Sendable (any StoreTransaction) throws -> Value) async throws -> Value {
        if database.postgres != nil {
            if let value = value(for: key) { return value }
            return try await database.queryOffLoop { tx in try self.readAndKeep(key, in: tx, read)! }
        }
        return try await value(for: key, from: database, orRead: { (db: Database) in try read(SQLiteTransaction.reading(db)) })
    }

    /// Reads `key`'s value in `tx`, a PostgreSQL transaction whose sessions record the tables
    /// each statement names into the read under way (`PostgresSession.run`), and keeps it unless
    /// a commit landed while it was read, the read reached a table the region did not cover
    /// yet, or it is nil.
    private func readAndKeep(_ key: Key, in tx: any StoreTransaction, _ read: (any StoreTransaction) throws -> Value?) throws -> Value? {
        let readAt = region.version
        let scope = ReadScope(for: region)
        let outer = ReadScope.current
        let value = try ReadScope.$current.withValue(scope) { try read(tx) }
        outer?.include(region)
        if let value { store(value, for: key, readAt: readAt, readIn: scope) }
        return value
    }

    /// What `read` reads in one read transaction now, on the caller's thread, whatever is kept;
    /// kept for next time unless nil (for an event loop's own handler, which cannot wait).
    func fresh(for key: Key, from database: AppDatabase, query read: (any StoreTransaction) throws -> Value?) throws -> Value? {
        if database.postgres != nil { return try database.query { tx in try readAndKeep(key, in: tx, read) } }
        return try fresh(for: key, from: database, read: { (db: Database) in try read(SQLiteTransaction.reading(db)) })
    }

    /// The same, read off the loop.
    func fresh(for key: Key, from database: AppDatabase,
               query read: @escaping @Sendable (any StoreTransaction) throws -> Value?) async throws -> Value? {
        if database.postgres != nil { return try await database.queryOffLoop { tx in try self.readAndKeep(key, in: tx, read) } }
        return try await fresh(for: key, from: database, read: { (db: Database) in try read(SQLiteTransaction.reading(db)) })
    }
}

extension DuplicateKey {
    /// What `body` answers; a unique key its write collides with throws `DuplicateKey` in place
    /// of SQLite's constraint error.
    static func mapped<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
            throw DuplicateKey()
        }
    }
}
