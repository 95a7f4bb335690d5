import Foundation
import Logging
import NIOCore
import PostgresNIO

/// One PostgreSQL connection used synchronously, as the storage seam's transaction bodies are:
/// each statement is sent and waited for on the calling thread. That thread is one of the
/// store's own, never an event loop (`Storage/README.md`: why the bodies are synchronous).
/// Transactions on one session take turns (a connection has one transaction at a time); `run`
/// outside a transaction is for one thread at a time.
final class PostgresSession: @unchecked Sendable {
    let connection: PostgresConnection
    let logger: Logger
    /// The schema's tables, to tell what each statement read or changed (the caches' regions);
    /// nil counts every write as a change of everything and teaches caches nothing.
    let tables: PostgresTables?
    /// Held for a whole transaction, so two threads' transactions never share the connection.
    private let turn = NSLock()
    /// What the transaction under way changed so far (nil: anything), read by its writer before
    /// it commits; guarded by `turn`.
    private(set) var changedTables: Set<String>? = []

    init(_ connection: PostgresConnection, logger: Logger, tables: PostgresTables? = nil) {
        (self.connection, self.logger, self.tables) = (connection, logger, tables)
    }

    /// Runs `query` and returns its rows. Inside a cached read (`ReadScope.current`) the tables
    /// it names are recorded for the cache.
    @discardableResult
    func run(_ query: PostgresQuery) throws -> [PostgresRow] {
        precondition(!connection.eventLoop.inEventLoop, "a PostgreSQL statement must not be waited for on its own event loop")
        // A statement sent on a closed connection would wait forever for an answer.
        guard !connection.isClosed else { throw ConnectionClosed() }
        note(query.sql)
        return try Self.waitFor(connection.query(query, logger: logger)).rows
    }

    /// Counts what `sql` may change into `changedTables`, and what it reads into the read under way.
    private func note(_ sql: String) {
        guard let tables else {
            changedTables = nil
            return
        }
        if changedTables != nil {
            if let changed = tables.changed(by: sql) { changedTables?.formUnion(changed) } else { changedTables = nil }
        }
        ReadScope.current?.add(sql, reading: tables.named(in: sql))
    }

    /// `future`'s value, waited for on this thread. NIO's own `wait()` refuses every event loop
    /// thread; a request handler's loop may wait here because the connection's input and output
    /// run on PostgreSQL's own loops (`PostgresConnector.loops`), never the waiting one.
    static func waitFor<Value: Sendable>(_ future: EventLoopFuture<Value>) throws -> Value {
        let done = DispatchSemaphore(value: 0)
        let outcome = OutcomeBox<Value>()
        future.whenComplete { result in
            outcome.result = result
            done.signal()
        }
        done.wait()
        return try outcome.result!.get()
    }

    /// The session's connection is closed (the server ended it, or the network did).
    struct ConnectionClosed: Error, CustomStringConvertible {
        var description: String { "the connection to PostgreSQL is closed" }
    }

    /// Whether the connection can still carry statements.
    var isOpen: Bool { !connection.isClosed }

    /// A result handed from the connection's loop to the waiting thread (the semaphore orders
    /// the write before the read).
    private final class OutcomeBox<Value: Sendable>: @unchecked Sendable {
        var result: Result<Value, any Error>?
    }

    /// Runs `sql`, whose parameters are numbered `$1`, `$2`, … in the order of `values` (for
    /// SQL that names one value several times), and returns its rows. Labelled, so that an
    /// interpolated literal meant for `run(_:)` (whose values are bound) can never be taken for
    /// plain text here.
    @discardableResult
    func run(numbered sql: String, binding values: any PostgresEncodable...) throws -> [PostgresRow] {
        var bindings = PostgresBindings(capacity: values.count)
        for value in values { try bindings.append(value, context: .default) }
        return try run(PostgresQuery(unsafeSQL: sql, binds: bindings))
    }

    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws.
    /// A `readOnly` one refuses every write.
    func transaction<T>(readOnly: Bool = false, _ body: () throws -> T) throws -> T {
        turn.lock()
        defer { turn.unlock() }
        changedTables = []
        try run(readOnly ? "BEGIN READ ONLY" : "BEGIN")
        do {
            let value = try body()
            try run("COMMIT")
            return value
        } catch {
            _ = try? run("ROLLBACK")
            throw error
        }
    }
}
