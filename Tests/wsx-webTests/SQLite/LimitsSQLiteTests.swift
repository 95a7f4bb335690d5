import Foundation
import GRDB
import Testing
@testable import wsx_web

/// SQLite's own test of limits and storage: the connection's journal mode and foreign keys, read
/// with PRAGMAs.
extension LimitsTests {
    @Test("the database runs in WAL mode with foreign keys on")
    func walMode() async throws {
        try await TestApp.sqlite().run { app in
            let (mode, foreignKeys) = try await app.database.writer.read { db in
                (try String.fetchOne(db, sql: "PRAGMA journal_mode"), try Int.fetchOne(db, sql: "PRAGMA foreign_keys"))
            }
            #expect(mode == "wal")
            #expect(foreignKeys == 1)
        }
    }
}
