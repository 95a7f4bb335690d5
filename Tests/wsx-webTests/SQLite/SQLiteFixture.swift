import GRDB
@testable import wsx_web

extension AppDatabase {
    /// Runs one plain SQL statement, for the rows a conformance suite needs that its stores are
    /// not about (`ConformanceNode.fixture`): the one way those suites reach SQLite's connection.
    func executeFixture(_ sql: String) async throws {
        try await writer.write { db in try db.execute(sql: sql) }
    }
}

/// A database as an older version left it, for the migrations' own tests.
enum OlderDatabase {
    /// The time every row of the fixtures was written at.
    static let time = "2026-11-01 10:00:00.000"

    /// A database in memory migrated up to `last` only.
    static func migrated(upTo last: String) throws -> DatabaseQueue {
        let queue = try DatabaseQueue()
        try AppDatabase.migrator.migrate(queue, upTo: last)
        return queue
    }

    /// Two people (1 and 2) and workspace 1, owned by the first.
    static let twoPeopleAndAWorkspace = """
        INSERT INTO users (id, email, email_key, nickname, password_hash, created_at, updated_at)
            VALUES (1, 'a@x', 'a@x', 'A', 'h', '\(time)', '\(time)'), (2, 'b@x', 'b@x', 'B', 'h', '\(time)', '\(time)');
        INSERT INTO workspaces (id, name, name_key, owner_id, created_at, updated_at) VALUES (1, 'W', 'w', 1, '\(time)', '\(time)');
        """
}
