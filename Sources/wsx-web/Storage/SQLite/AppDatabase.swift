import Foundation
import GRDB
import Prometheus
import Uploads

/// The one way into wsx's database: the embedded SQLite file, or a PostgreSQL database that
/// several nodes share (`PostgresBackend`, `serve --database`).
///
/// On SQLite it owns the writer (a WAL-mode `DatabasePool` in production, so reads run
/// concurrently with the single writer) and applies the named migrations of
/// `AppDatabase.migrator` when opened. Services take it and keep each write an
/// invariant-preserving transaction through the stores (`write { tx in … }`, `query`), whichever
/// the backend; what is SQLite's alone (`writer`, `read`, `readOffLoop`) is for `Storage/SQLite/`.
final class AppDatabase: Sendable {
    private let sqliteWriter: (any DatabaseWriter)?
    /// The PostgreSQL backend; nil on SQLite.
    let postgres: PostgresBackend?
    /// Where write transactions publish their real-time events (on PostgreSQL: where the events
    /// every node committed are delivered, `PostgresEventFeed`).
    let outbox: EventOutbox
    private let sqliteGroupCommit: GroupCommit?
    /// On PostgreSQL, where each post's transaction is timed (SQLite's `GroupCommit` times its own).
    let postgresWriteTimes: DurationHistogram?
    /// What every cache of reads read, and the commits that changed it (`ReadRegion`).
    let regions: RegionVersions
    /// Where reads no cache answered run (`readOffLoop`); nil runs them on the caller's thread
    /// (commands, tests of a store alone).
    let readers: ReaderThreads?
    /// Misses of one kept read at the same moment, read once (`queryKept`).
    let sharedMisses = SharedMisses()

    /// Wraps `writer` and brings its schema up to date. `events` says who takes the real-time
    /// events of its writes: the hub of this process, or (in a command) the running server.
    /// `outside` watches the file for other connections' commits (nil for a database in memory).
    init(_ writer: any DatabaseWriter, clock: WallClock = .system, writeTimes: DurationHistogram? = nil,
         events: EventOutbox.Destination = .hub, outside: OtherConnections? = nil, readers: ReaderThreads? = nil) throws {
        sqliteWriter = writer
        postgres = nil
        self.readers = readers
        outbox = EventOutbox(clock: clock, destination: events)
        sqliteGroupCommit = GroupCommit(writer: writer, outbox: outbox, timings: writeTimes)
        postgresWriteTimes = nil
        regions = RegionVersions(outside: outside)
        writer.add(transactionObserver: regions, extent: .databaseLifetime)
        let migrator = Self.migrator
        let unknown = try writer.writeWithoutTransaction { db in
            try migrator.appliedIdentifiers(db).subtracting(migrator.migrations).sorted()
        }
        guard unknown.isEmpty else { throw NewerDatabase(unknownMigrations: unknown) }
        try migrator.migrate(writer)
    }

    /// The database of `backend`, already migrated. Its caches count every commit of every node
    /// that changed a table they read (a node's own once it committed, the others' as their
    /// notice arrives, `PostgresEventFeed.notice(changing:from:)`), and the
    /// events every node commits reach `outbox` through the backend's feed. Message posts'
    /// transactions are timed into `timingWritesInto` when given (the server's metrics).
    init(postgres backend: PostgresBackend, clock: WallClock = .system, timingWritesInto writeTimes: DurationHistogram? = nil) {
        sqliteWriter = nil
        sqliteGroupCommit = nil
        postgresWriteTimes = writeTimes
        postgres = backend
        readers = nil
        let outbox = EventOutbox(clock: clock, destination: .hub)
        let regions = RegionVersions(outside: nil)
        (self.outbox, self.regions) = (outbox, regions)
        let count: @Sendable (Set<String>?) -> Void = { changed in
            if let changed { regions.countChanges(touching: changed) } else { regions.countOutsideChanges() }
        }
        backend.onCommit(count)
        backend.feed.onNotice(count)
        Task {
            for await page in backend.feed.events { outbox.deliver(page.map(\.committed)) }
        }
        backend.feed.start()
    }

    /// SQLite's writer; `Storage/SQLite/` alone asks for it, on a SQLite database.
    var writer: any DatabaseWriter {
        guard let sqliteWriter else { preconditionFailure("SQLite's writer asked for on PostgreSQL") }
        return sqliteWriter
    }

    /// Shared transactions for writes that arrive together (message posts), on SQLite.
    var groupCommit: GroupCommit {
        guard let sqliteGroupCommit else { preconditionFailure("SQLite's group commit asked for on PostgreSQL") }
        return sqliteGroupCommit
    }

    /// The database file inside `dataDirectory` (created if missing).
    static func path(inDataDirectory dataDirectory: String) -> String {
        URL(fileURLWithPath: dataDirectory).appendingPathComponent("wsx.sqlite").path
    }

    /// Opens (creating when needed) `wsx.sqlite` in `dataDirectory` and migrates it.
    /// The folder is made the server user's alone (`DataFolder`) first; SQLite gives its WAL and
    /// shared-memory files the database file's mode, so the database is made 0600 before SQLite
    /// first opens it.
    /// `synchronous` says what a commit survives; the shared transactions of message posts
    /// (`GroupCommit`) are timed into `timingWritesInto` when given (the server's metrics).
    static func open(dataDirectory: String, clock: WallClock = .system, synchronous: DatabaseSync = .normal,
                     timingWritesInto writeTimes: DurationHistogram? = nil,
                     events: EventOutbox.Destination = .hub, readers: ReaderThreads? = nil) throws -> AppDatabase {
        try DataFolder.prepare(dataDirectory)
        let file = path(inDataDirectory: dataDirectory)
        if !FileManager.default.fileExists(atPath: file) { _ = DataFolder.createFile(file) }
        let pool = try DatabasePool(path: file, configuration: configuration())
        // GRDB's pool sets `synchronous = NORMAL` on its writer when it turns WAL on, after
        // `prepareDatabase` ran: the setting is made here, on the writer, once the pool is up.
        // Readers never commit, so theirs does not matter.
        try pool.writeWithoutTransaction { db in try db.execute(sql: synchronous.pragma) }
        return try AppDatabase(pool, clock: clock, writeTimes: writeTimes, events: events, outside: OtherConnections(path: file),
                               readers: readers)
    }

    /// The writer's `PRAGMA synchronous`: 1 for NORMAL, 2 for FULL.
    func synchronousSetting() throws -> Int {
        guard postgres == nil else { throw NotOnPostgres(what: "PRAGMA synchronous") }
        return try writer.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1 }
    }

    /// Connection settings: foreign keys on (GRDB's default), wait for a busy writer instead of
    /// failing, and `temp_store = MEMORY`: every post runs in a savepoint of a shared transaction
    /// (`GroupCommit`), and a savepoint keeps the original of each page it changes in a
    /// statement journal; in a temporary file that was 9 pages per post, three quarters of all
    /// the server's writes to disk (strace), for a journal that lives a few microseconds.
    /// `synchronous` is the writer's alone, set by `open` once the pool is up.
    static func configuration() -> Configuration {
        let readerCount = Self.readerCount
        var config = Configuration()
        config.busyMode = .timeout(10)
        config.maximumReaderCount = readerCount
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
        }
        return config
    }

    /// Every read of the app goes through here, on the calling thread.
    ///
    /// On a WAL database a read never waits for the writer, so it is plain CPU work; hopping to a
    /// reader's queue and back cost more than the queries of the channel page (perf: futex
    /// wake-ups and task switches; 1,250 -> 1,650 pages/s). The rule that makes this safe: the
    /// app never uses GRDB's async `read`, whose reader is released only after its task resumes
    /// on the cooperative pool; with the pool's threads blocked here waiting for a reader, that
    /// would deadlock (seen under load). A test keeps `writer.read` out of `Sources/`.
    ///
    /// Inside a cached read (`ReadScope.current`, a page being kept) the statements' region is
    /// recorded for it, and the scope stays current on the reader's thread.
    func read<T>(_ block: (Database) throws -> T) throws -> T {
        // Taken before the transaction's snapshot: a cache filled later in this read keeps its
        // value only if nothing it covers changed since (`VersionedCache`).
        let started = regions.commits
        let scope = ReadScope.current
        return try withoutActuallyEscaping(block) { unscoped in
            let block = { (db: Database) throws -> T in
                try ReadTransaction.$startedAt.withValue(started) { try scope.map { try $0.record(db, unscoped) } ?? unscoped(db) }
            }
            return try writer.read(block)
        }
    }

    /// A new region for a cache of reads, counted from now on.
    func cacheRegion(_ name: String) -> ReadRegion {
        regions.makeRegion(name: name)
    }

    /// How many connections read at once; as many threads run the reads no cache answered.
    static let readerCount = 8

    /// A read that may take a while, run on one of the `readers` threads while the caller (an
    /// event loop) waits without blocking; the read under way (`ReadScope`) still records it.
    func readOffLoop<T: Sendable>(_ block: @escaping @Sendable (Database) throws -> T) async throws -> T {
        guard let readers else { return try read(block) }
        let scope = ReadScope.current
        return try await readers.run { [self] in
            try ReadScope.$current.withValue(scope) { try read(block) }
        }
    }

    /// Another process (an import) committed to the file: every cache of reads is stale.
    func noteOutsideWrites() {
        regions.countOutsideChanges()
    }

    /// Asks SQLite whether another connection committed since the last request, and if so
    /// makes every cache of reads stale (`OtherConnections`); asked before signed-in requests.
    /// On PostgreSQL other nodes' commits are noticed as they happen (`PostgresEventFeed`).
    func noticeOutsideWrites() {
        if regions.outside?.changedOutside() == true { regions.countOutsideChanges() }
    }

    /// Publishes the events other processes queued (`OutsideEvents`) through this one's outbox;
    /// answers how many. On PostgreSQL a command's events are every node's as it commits them.
    @discardableResult
    func relayOutsideEvents() throws -> Int {
        guard postgres == nil else { return 0 }
        let outbox = self.outbox
        return try writer.write { db in try OutsideEvents.relay(db, through: outbox) }
    }

    /// Names of the migrations already applied, oldest first.
    func appliedMigrations() throws -> [String] {
        try read { db in try Self.migrator.appliedIdentifiers(db).sorted() }
    }
}

/// Something SQLite's alone was asked of a PostgreSQL database.
struct NotOnPostgres: Error, CustomStringConvertible {
    let what: String
    var description: String { "\(what) is SQLite's; this server runs on PostgreSQL" }
}

/// The database was brought up to date by a newer wsx-web than this one: opening it would run
/// code that does not know its tables (and say "up to date"), so it is refused, naming what
/// this binary does not know.
struct NewerDatabase: Error, CustomStringConvertible {
    let unknownMigrations: [String]

    var description: String {
        "the database was updated by a newer wsx-web (migrations this one does not know: "
            + unknownMigrations.joined(separator: ", ")
            + "): run that version or a later one, or restore a backup made before the upgrade"
    }
}

extension AppDatabase {
    /// A write transaction run on the calling thread, for operator commands (an import) whose
    /// writes capture state they change; the server's requests use the writer's async `write`.
    func writeBlocking<T>(_ updates: (Database) throws -> T) throws -> T {
        try writer.write(updates)
    }
}
