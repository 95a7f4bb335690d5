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
    /// Held for a whole transaction, so two threads' transactions never share the connection.
    private let turn = NSLock()

    init(_ connection: PostgresConnection, logger: Logger) {
        (self.connection, self.logger) = (connection, logger)
    }

    /// Runs `query` and returns its rows.
    @discardableResult
    func run(_ query: PostgresQuery) throws -> [PostgresRow] {
        precondition(!connection.eventLoop.inEventLoop, "a PostgreSQL statement must not be waited for on an event loop")
        return try connection.query(query, logger: logger).wait().rows
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
