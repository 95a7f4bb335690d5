import Foundation
import Logging
import NIOPosix
import PostgresNIO
import Synchronization

/// One node's way into a PostgreSQL database that several nodes share: a few sessions, each used
/// by one transaction body at a time on a thread of the database's own (the bodies are
/// synchronous, `Storage/README.md`), the schema brought up to date on open (under the
/// schema's advisory lock, so nodes starting together migrate once), and a feed of every
/// node's committed events (`PostgresEventFeed`).
///
/// A write that published events tells every node at its commit (`NOTIFY wsx_events`, sent
/// inside the transaction, delivered by PostgreSQL when it commits); each node's feed then reads
/// the events after the last one it delivered, so its own writes arrive the same way as the
/// others'.
final class PostgresBackend: Sendable {
    /// The channel writes notify and feeds listen on.
    static let eventChannel = "wsx_events"

    let connector: PostgresConnector
    let clock: WallClock
    /// Every event committed by any node, in id order, once each.
    let feed: PostgresEventFeed
    /// The schema's tables, by which each write tells what it changed.
    let tables: PostgresTables
    private let sessions: SessionPool
    private let threads: NIOThreadPool
    /// Told what each of this node's writes changed once it committed (nil: anything).
    private let committedHook = Mutex<(@Sendable (Set<String>?) -> Void)?>(nil)

    private init(connector: PostgresConnector, clock: WallClock, tables: PostgresTables, sessions: [PostgresSession], feed: PostgresEventFeed) {
        (self.connector, self.clock, self.tables, self.feed) = (connector, clock, tables, feed)
        self.sessions = SessionPool(sessions, connector: connector, tables: tables)
        threads = NIOThreadPool(numberOfThreads: sessions.count)
        threads.start()
    }

    /// Connects `sessionCount` sessions to `address`, migrates the schema, and starts the feed
    /// after the newest event there is now (events before it are replay's, not news).
    static func open(address: PostgresAddress, logger: Logger, clock: WallClock = .system, sessionCount: Int = 4) async throws -> PostgresBackend {
        let connector = PostgresConnector(address: address, logger: logger)
        var connections: [PostgresConnection] = []
        do {
            for _ in 0..<max(1, sessionCount) { connections.append(try await connector.connect()) }
            try await PostgresSchema.migrate(connections[0], logger: logger)
            let latest = try await connections[0].query("SELECT last_id FROM event_counter", logger: logger)
                .collect().first?.decode(Int64.self) ?? 0
            let tables = try await PostgresTables.load(connections[0], logger: logger)
            return PostgresBackend(connector: connector, clock: clock, tables: tables,
                                    sessions: connections.map { PostgresSession($0, logger: logger, tables: tables) },
                                    feed: PostgresEventFeed(connector: connector, channel: eventChannel, after: latest))
        } catch {
            for connection in connections { try? await connection.close() }
            throw error
        }
    }

    /// Runs `body` in one write transaction on a session of its own: its stores' changes and the
    /// events it publishes commit together, or not at all when it throws.
    func write<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) throws -> T) async throws -> T {
        let clock = self.clock
        let origin = feed.origin
        let (value, changed) = try await counted { try await onSession { session in try Self.write(on: session, clock: clock, origin: origin, body) } }
        committedHook.withLock { $0 }?(changed)
        return value
    }

    /// The same on the calling thread (an operator command; never an event loop of PostgreSQL's).
    func writeNow<T>(_ body: (any StoreTransaction) throws -> T) throws -> T {
        let session = try sessions.take()
        defer { sessions.give(session) }
        let (value, changed) = try counted { try Self.write(on: session, clock: clock, origin: feed.origin, body) }
        committedHook.withLock { $0 }?(changed)
        return value
    }

    /// `write`'s answer; when the connection failed under it, so that it may have committed
    /// without this node hearing back (and the node skips its own notices), the node's caches
    /// count anything as changed first. A transaction the server refused changed nothing.
    private func counted<T>(_ write: () throws -> T) rethrows -> T {
        do { return try write() } catch let error as PSQLError where error.serverInfo == nil {
            committedHook.withLock { $0 }?(nil)
            throw error
        }
    }

    private func counted<T>(_ write: () async throws -> T) async rethrows -> T {
        do { return try await write() } catch let error as PSQLError where error.serverInfo == nil {
            committedHook.withLock { $0 }?(nil)
            throw error
        }
    }

    /// Calls `action` with what each of this node's writes changed (nil: anything) once it
    /// committed, before the write returns: the node's caches count it before its caller reads.
    func onCommit(_ action: @escaping @Sendable (Set<String>?) -> Void) {
        committedHook.withLock { $0 = action }
    }

    /// Every write tells every node as it commits (`NOTIFY`, delivered at the commit), naming
    /// the tables it changed (`PostgresEventFeed.notice(changing:from:)`): feeds then read the
    /// events committed since, and every other node's caches count the change where they read
    /// those tables (this node's counted it as the write returned).
    /// Answers the body's value and what it changed.
    ///
    /// A transaction PostgreSQL ends to break a deadlock, or for a conflict it could not
    /// serialize, changed nothing: it runs again from the start (its body works only on `tx`),
    /// up to `retries` times, as SQLite's single writer would simply have made it wait.
    private static func write<T>(on session: PostgresSession, clock: WallClock, origin: String,
                                 _ body: (any StoreTransaction) throws -> T) throws -> (T, Set<String>?) {
        var attempt = 0
        while true {
            do {
                return try session.transaction {
                    let value = try body(PostgresTransaction.writing(session, clock: clock))
                    let changed = session.changedTables
                    try session.run("SELECT pg_notify(\(Self.eventChannel), \(PostgresEventFeed.notice(changing: changed, from: origin)))")
                    return (value, changed)
                }
            } catch let error as PSQLError where attempt < retries && retried.contains(error.serverInfo?[.sqlState] ?? "") {
                attempt += 1
            }
        }
    }

    /// How many times a write PostgreSQL ended for a deadlock or a serialization failure runs again.
    static let retries = 3
    /// Deadlock detected, serialization failure.
    private static let retried: Set<String> = ["40P01", "40001"]

    /// Runs `body` with a session of its own on the calling thread (not a store's work: the node
    /// secrets, `PostgresSecrets.swift`).
    func withSessionNow<T>(_ body: (PostgresSession) throws -> T) throws -> T {
        let session = try sessions.take()
        defer { sessions.give(session) }
        return try body(session)
    }

    /// Runs `body` in one read-only transaction on a session of its own.
    func query<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) throws -> T) async throws -> T {
        let clock = self.clock
        // The read under way (a page being kept) learns what this one reads, on the database's thread too.
        let scope = ReadScope.current
        return try await onSession { session in
            try ReadScope.$current.withValue(scope) {
                try session.transaction(readOnly: true) { try body(PostgresTransaction.reading(session, clock: clock)) }
            }
        }
    }

    /// The same on the calling thread: a request handler's read, as SQLite's reads run. The
    /// sessions' input and output run on PostgreSQL's own event loops (`PostgresConnector.loops`),
    /// never the caller's, so waiting here cannot stall them.
    func queryNow<T>(_ body: (any StoreTransaction) throws -> T) throws -> T {
        let session = try sessions.take()
        defer { sessions.give(session) }
        return try session.transaction(readOnly: true) { try body(PostgresTransaction.reading(session, clock: clock)) }
    }

    /// Runs `work` on a session of its own, on one of the database's threads (not a store's
    /// work: the limiters' counters, `PostgresAttempts`).
    func withSession<T: Sendable>(_ work: @escaping @Sendable (PostgresSession) throws -> T) async throws -> T {
        try await onSession(work)
    }

    /// Runs `work` on one of the database's threads with a session no other body holds.
    private func onSession<T: Sendable>(_ work: @escaping @Sendable (PostgresSession) throws -> T) async throws -> T {
        let sessions = self.sessions
        return try await threads.runIfActive {
            let session = try sessions.take()
            defer { sessions.give(session) }
            return try work(session)
        }
    }

    /// Ends the feed, the threads and the sessions.
    func close() async {
        feed.stop()
        try? await threads.shutdownGracefully()
        for session in sessions.all { try? await session.connection.close() }
    }

    /// The sessions, each lent to one body at a time. A session whose connection was closed (the
    /// server restarted, the network dropped) is replaced by a new connection when it is next
    /// lent; while the database cannot be reached, the body fails at once.
    private final class SessionPool: @unchecked Sendable {
        private var free: [PostgresSession]
        private let condition = NSCondition()
        private let connector: PostgresConnector
        private let tables: PostgresTables

        init(_ sessions: [PostgresSession], connector: PostgresConnector, tables: PostgresTables) {
            (free, self.connector, self.tables) = (sessions, connector, tables)
        }

        /// The sessions not lent now (every one, once the threads have stopped), for closing them.
        var all: [PostgresSession] { condition.withLock { free } }

        func take() throws -> PostgresSession {
            condition.lock()
            while free.isEmpty { condition.wait() }
            let session = free.removeLast()
            condition.unlock()
            if session.isOpen { return session }
            do {
                return PostgresSession(try connector.connectNow(), logger: session.logger, tables: tables)
            } catch {
                give(session)
                throw error
            }
        }

        func give(_ session: PostgresSession) {
            condition.lock()
            free.append(session)
            condition.signal()
            condition.unlock()
        }
    }
}
