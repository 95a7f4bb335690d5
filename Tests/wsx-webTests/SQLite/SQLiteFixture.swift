import GRDB
@testable import wsx_web

extension AppDatabase {
    /// Runs one plain SQL statement, for the rows a conformance suite needs that its stores are
    /// not about (`ConformanceNode.fixture`): the one way those suites reach SQLite's connection.
    func executeFixture(_ sql: String) async throws {
        try await writer.write { db in try db.execute(sql: sql) }
    }
}
