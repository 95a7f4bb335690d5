import GRDB
import Logging
import PostgresNIO
import Testing
@testable import wsx_web

/// The PostgreSQL schema keeps up with SQLite's: a column a SQLite migration adds without its
/// PostgreSQL step fails here, before a copy between the two could lose it.
@Suite("The two schemas have the same tables and columns", .timeLimit(.minutes(5)))
struct SchemaParityTests {
    /// SQLite's own bookkeeping and its full-text index (PostgreSQL searches `message_search`).
    static let sqliteOnly: Set<String> = ["grdb_migrations", "sqlite_sequence", "message_index", "message_index_data",
                                          "message_index_idx", "message_index_content", "message_index_docsize",
                                          "message_index_config"]
    /// PostgreSQL's steps, the commit-ordered event counter, the search table, what other nodes'
    /// hubs need beside an event, and the secrets SQLite keeps in files.
    static let postgresOnly: Set<String> = ["schema_migrations", "event_counter", "message_search", "event_delivery", "nodes", "node_presence", "limiter_attempts",
                                            "node_secrets"]

    /// The columns of a freshly migrated SQLite database, by table.
    static func sqliteColumns() throws -> [String: [String]] {
        let queue = try DatabaseQueue()
        try AppDatabase.migrator.migrate(queue)
        return try queue.read { db in
            let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
            var columns: [String: [String]] = [:]
            for table in tables where !sqliteOnly.contains(table) {
                columns[table] = try db.columns(in: table).map(\.name)
            }
            return columns
        }
    }

    @Test("every SQLite table has its PostgreSQL table with the same columns, in the same order")
    func sameColumns() async throws {
        let sqlite = try Self.sqliteColumns()
        #expect(sqlite.count >= 30, "read \(sqlite.count) SQLite tables")

        let logger = Logger(label: "test.postgres")
        let address = try await PostgresTestCluster.shared().database()
        let connection = try await PostgresConnector(address: address, logger: logger).connect()
        var postgres: [String: [String]] = [:]
        do {
            try await PostgresSchema.migrate(connection, logger: logger)
            let rows = try await connection.query("""
                SELECT table_name::text, column_name::text FROM information_schema.columns
                WHERE table_schema = 'public' ORDER BY table_name, ordinal_position
                """, logger: logger).collect()
            for row in rows {
                let (table, column) = try row.decode((String, String).self)
                postgres[table, default: []].append(column)
            }
            try await connection.close()
        } catch {
            try? await connection.close()
            throw error
        }
        #expect(Set(postgres.keys).subtracting(Self.postgresOnly) == Set(sqlite.keys))
        for (table, columns) in sqlite.sorted(by: { $0.key < $1.key }) {
            #expect(postgres[table] == columns, "\(table)")
        }
    }
}
