import Foundation
import Logging
import PostgresNIO
import Testing
@testable import wsx_web

/// The backends the conformance suites run the same tests on.
enum StorageBackend: String, CaseIterable, Sendable {
    case sqlite, postgres
}

/// One way in to a backend's database (a node), handing each transaction's body the stores a
/// suite tests: built from the seam's transaction on SQLite (`AppDatabase.write`), from a
/// session of the node's own on PostgreSQL. Two nodes racing are two connections on PostgreSQL
/// and two writes on SQLite's single writer.
struct ConformanceNode<Stores>: Sendable {
    /// Runs `body` in one transaction.
    let transaction: @Sendable (_ body: @escaping @Sendable (Stores) throws -> Void) async throws -> Void
    /// Makes an account without coins; answers its id.
    let person: @Sendable (_ email: String) async throws -> Int64
    /// Runs one SQL statement written for both backends (plain inserts a suite needs whose
    /// stores are not its subject), so each backend's triggers see the same rows arrive.
    let fixture: @Sendable (_ sql: String) async throws -> Void
    let close: @Sendable () async throws -> Void

    /// What `body` answers, in one transaction.
    func answer<T: Sendable>(_ body: @escaping @Sendable (Stores) throws -> T) async throws -> T {
        let box = ConformanceAnswer<T>()
        try await transaction { stores in box.set(try body(stores)) }
        return try #require(box.get())
    }
}

/// Runs `body` on `count` nodes of a new database of `backend`, closed afterwards whatever happens.
func withConformanceNodes<Stores>(_ backend: StorageBackend, count: Int = 1,
                                  sqlite: @escaping @Sendable (any StoreTransaction) -> Stores,
                                  postgres: @escaping @Sendable (PostgresSession) -> Stores,
                                  _ body: ([ConformanceNode<Stores>]) async throws -> Void) async throws {
    var nodes: [ConformanceNode<Stores>] = []
    do {
        try await makeNodes()
    } catch {
        // A connection that cannot be made (a loaded machine) closes those made before it.
        for node in nodes { try? await node.close() }
        throw error
    }

    func makeNodes() async throws {
        switch backend {
        case .sqlite:
            let database = try AppDatabase.open(dataDirectory: try makeEmptyFolder().appendingPathComponent("data").path)
            let node = ConformanceNode<Stores>(transaction: { work in
                try await database.write { tx in try work(sqlite(tx)) }
            }, person: { email in
                try await database.write { tx in
                    let now = Date()
                    return try tx.accounts.insert(User(email: email, emailKey: email, nickname: "Person", phone: nil, passwordHash: "x",
                                                       lang: nil, createdAt: now, updatedAt: now)).id!
                }
            }, fixture: { sql in
                try await database.executeFixture(sql)
            }, close: {})
            nodes = Array(repeating: node, count: count)
        case .postgres:
            let logger = Logger(label: "test.postgres")
            let address = try await PostgresTestCluster.shared().database()
            for index in 0..<count {
                let connection = try await PostgresConnector(address: address, logger: logger).connect()
                do {
                    if index == 0 { try await PostgresSchema.migrate(connection, logger: logger) }
                } catch {
                    try? await connection.close()
                    throw error
                }
                let session = PostgresSession(connection, logger: logger)
                nodes.append(ConformanceNode(transaction: { work in
                    try await onOwnThread {
                        do {
                            try session.transaction { try work(postgres(session)) }
                        } catch let error as PSQLError {
                            throw PostgresFixtureFailure(sql: "a transaction's statement", detail: String(reflecting: error))
                        }
                    }
                }, person: { email in
                    try await onOwnThread {
                        let now = Date()
                        return try session.run("""
                            INSERT INTO users (email, email_key, nickname, password_hash, created_at, updated_at)
                            VALUES (\(email), \(email), 'Person', 'x', \(now), \(now)) RETURNING id
                            """)[0].decode(Int64.self)
                    }
                }, fixture: { sql in
                    try await onOwnThread {
                        do {
                            _ = try session.run(PostgresQuery(unsafeSQL: sql))
                        } catch let error as PSQLError {
                            throw PostgresFixtureFailure(sql: sql, detail: String(reflecting: error))
                        }
                    }
                }, close: { try await connection.close() }))
            }
        }
    }
    do {
        try await body(nodes)
    } catch {
        for node in nodes { try? await node.close() }
        if let error = error as? PSQLError { throw PostgresFixtureFailure(sql: "a statement", detail: String(reflecting: error)) }
        throw error
    }
    for node in nodes { try await node.close() }
}

/// A fixture statement PostgreSQL refused, with the server's whole message (`PSQLError`'s own
/// description hides it).
struct PostgresFixtureFailure: Error, CustomStringConvertible {
    let sql: String
    let detail: String
    var description: String { "\(detail)\n  in: \(sql)" }
}

/// A value handed out of a transaction's body.
private final class ConformanceAnswer<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: T?
    func set(_ new: T) { lock.withLock { value = new } }
    func get() -> T? { lock.withLock { value } }
}

/// Runs `body` on `count` nodes whose transactions are the backend's whole `StoreTransaction`
/// (a `PostgresTransaction` on PostgreSQL, publishing under commit-ordered ids), for suites of
/// stores that work through the others.
func withTransactionNodes(_ backend: StorageBackend, count: Int = 1,
                          _ body: ([ConformanceNode<any StoreTransaction>]) async throws -> Void) async throws {
    try await withConformanceNodes(backend, count: count, sqlite: { $0 }, postgres: { PostgresTransaction.writing($0, clock: .system) }, body)
}
