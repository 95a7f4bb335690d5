import Foundation
import Logging
import PostgresNIO
import Testing
@testable import wsx_web

@Suite("PostgreSQL schema: migrate", .timeLimit(.minutes(5)))
struct PostgresSchemaTests {
    let logger = Logger(label: "test.postgres")

    /// Runs `body` on a connection to `address`, closed afterwards whatever happens.
    private func using(_ address: PostgresAddress, _ body: (PostgresConnection) async throws -> Void) async throws {
        let connection = try await PostgresConnector(address: address, logger: logger).connect()
        do {
            try await body(connection)
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
    }

    private func tables(_ connection: PostgresConnection) async throws -> Set<String> {
        Set(try await connection.query(
            "SELECT table_name::text FROM information_schema.tables WHERE table_schema = 'public'", logger: logger)
            .collect().map { try $0.decode(String.self) })
    }

    @Test("what a write changes is read from the catalog: a post reaches the unread counts its trigger keeps, a removed room its messages' rows; reads change nothing")
    func tablesAWriteReaches() async throws {
        let address = try await PostgresTestCluster.shared().database()
        try await using(address) { connection in
            try await PostgresSchema.migrate(connection, logger: logger)
            let tables = try await PostgresTables.load(connection, logger: logger)
            #expect(tables.names.isSuperset(of: ["users", "messages", "room_members", "reactions"]))
            let post = try #require(tables.changed(by: "INSERT INTO messages (room_id, author_id, content) VALUES ($1, $2, $3)"))
            #expect(post.isSuperset(of: ["messages", "room_members"]), "the unread-count trigger's table")
            #expect(!post.contains("users"))
            let removal = try #require(tables.changed(by: "DELETE FROM rooms WHERE id = $1"))
            #expect(removal.isSuperset(of: ["rooms", "room_members", "messages", "reactions", "pins"]), "rows its keys cascade to")
            #expect(tables.changed(by: "SELECT name FROM rooms WHERE id = $1") == [])
            #expect(tables.changed(by: "ALTER TABLE rooms ADD COLUMN x INT") == nil, "a change of unknown kind changes anything")
            #expect(tables.named(in: "SELECT users.name FROM users JOIN sessions ON sessions.user_id = users.id") == ["users", "sessions"])
        }
    }

    @Test("an empty database gets every step; a second run applies nothing and changes nothing")
    func migratesOnce() async throws {
        let address = try await PostgresTestCluster.shared().database()
        try await using(address) { connection in
            let first = try await PostgresSchema.migrate(connection, logger: logger)
            #expect(first == PostgresSchema.steps.map(\.identifier))
            let made = try await tables(connection)
            for table in ["users", "sessions", "workspaces", "rooms", "messages", "events", "event_counter", "message_search",
                          "coin_ledger", "mail_outbox", "push_queue", "schema_migrations"] {
                #expect(made.contains(table), "no table \(table)")
            }
            #expect(try await PostgresSchema.migrate(connection, logger: logger).isEmpty)
            #expect(try await tables(connection) == made)
            #expect(try await PostgresSchema.applied(connection, logger: logger) == PostgresSchema.steps.map(\.identifier))
        }
    }

    @Test("nodes starting together migrate one at a time: four at once, each step applied once")
    func concurrentMigrations() async throws {
        let address = try await PostgresTestCluster.shared().database()
        let connector = PostgresConnector(address: address, logger: logger)
        let applied = try await withThrowingTaskGroup(of: [String].self) { group in
            for _ in 0..<4 {
                group.addTask { [logger] in
                    try await connector.withConnection { try await PostgresSchema.migrate($0, logger: logger) }
                }
            }
            return try await group.reduce(into: [[String]]()) { $0.append($1) }
        }
        #expect(applied.filter { !$0.isEmpty } == [PostgresSchema.steps.map(\.identifier)])
        let recorded = try await connector.withConnection { try await PostgresSchema.applied($0, logger: logger) }
        #expect(recorded == PostgresSchema.steps.map(\.identifier))
    }

    @Test("a schema newer than this build is refused, and nothing is changed")
    func refusesNewerSchema() async throws {
        let address = try await PostgresTestCluster.shared().database()
        try await using(address) { connection in
            try await PostgresSchema.migrate(connection, logger: logger)
            _ = try await connection.query("INSERT INTO schema_migrations (identifier) VALUES ('999-from-the-future')",
                                           logger: logger).collect()
            await #expect {
                try await PostgresSchema.migrate(connection, logger: logger)
            } throws: { error in
                "\(error)".contains("newer than this wsx knows (step 999-from-the-future)")
            }
            // The lock was let go: another migration can take it at once.
            let free = try await connection.query("SELECT pg_try_advisory_lock(\(PostgresSchema.lockKey))", logger: logger)
                .collect().first?.decode(Bool.self)
            #expect(free == true)
        }
    }

    @Test("a database that is not UTF8 is refused before anything is created")
    func refusesOtherEncodings() async throws {
        let address = try await PostgresTestCluster.shared().database(encoding: "SQL_ASCII")
        try await using(address) { connection in
            await #expect {
                try await PostgresSchema.migrate(connection, logger: logger)
            } throws: { error in
                "\(error)".contains("encoding is SQL_ASCII") && "\(error)".contains("needs UTF8")
            }
            let left = try await tables(connection)
            #expect(left.isEmpty)
        }
    }

    @Test("a step that fails leaves no half-made schema: its transaction rolls back")
    func failedStepRollsBack() async throws {
        let address = try await PostgresTestCluster.shared().database()
        try await using(address) { connection in
            // A table the first step makes, made beforehand, makes that step fail halfway.
            _ = try await connection.query("CREATE TABLE mail_outbox (id BIGINT)", logger: logger).collect()
            await #expect(throws: (any Error).self) { try await PostgresSchema.migrate(connection, logger: logger) }
            #expect(try await tables(connection) == ["mail_outbox", "schema_migrations"])
            #expect(try await PostgresSchema.applied(connection, logger: logger).isEmpty)
        }
    }
}

@Suite("wsx-web migrate --database", .timeLimit(.minutes(5)))
struct MigrateCommandPostgresTests {
    @Test("migrates from WSX_DATABASE, says so without the password, and refuses a bad address clearly")
    func migrateCommand() async throws {
        let cluster = try await PostgresTestCluster.shared()
        let address = try await cluster.database()
        let folder = try makeEmptyFolder()
        let binary = WSXBinary(path: WSXBinary.builtPath)
        // The password rides in the environment (not seen in `ps`); trust authentication ignores it.
        let secret = "postgres://postgres:pa55word@127.0.0.1:\(cluster.port)/\(address.database)"
        let first = try binary.run(["migrate"], in: folder, environment: ["WSX_DATABASE": secret])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("is up to date; steps applied (\(PostgresSchema.steps.count) now)"))
        #expect(first.stdout.contains("001-tables"))
        #expect(!(first.stdout + first.stderr).contains("pa55word"))
        // No SQLite file was made beside it.
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("data/wsx.sqlite").path))
        let again = try binary.run(["migrate", "--database", "\(address)"], in: folder)
        #expect(again.status == 0 && again.stdout.contains("steps applied:"), "\(again.stderr)")

        let wrong = try binary.run(["migrate", "--database", "postgres://nobody@127.0.0.1/x?sslmode=allow"], in: folder)
        #expect(wrong.status != 0)
        #expect(wrong.stderr.contains("sslmode allow is not one of disable, prefer, require, verify-ca, verify-full"))
        let unreachable = try binary.run(["migrate", "--database", "postgres://wsx:pa55word@127.0.0.1:1/wsx"], in: folder)
        #expect(unreachable.status != 0)
        #expect(unreachable.stderr.contains("cannot reach PostgreSQL at postgres://wsx:***@127.0.0.1:1/wsx"))
        #expect(!unreachable.stderr.contains("pa55word"))
    }
}
