import Foundation
import GRDB
import Testing
@testable import wsx_web

/// SQLite's own test of account control: a data folder written by an older version, made with
/// GRDB at migration 028, is migrated by opening it. It stays on SQLite (migrations' SQL).
extension AdministrationTests {
    @Test("an older data folder: the earliest active account becomes the administrator, placeholders of people who left are deactivated")
    func migration() async throws {
        let folder = try makeEmptyFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("wsx.sqlite").path
        let queue = try DatabaseQueue(path: path)
        try AppDatabase.migrator.migrate(queue, upTo: "028-edit-count")
        try await queue.write { db in
            let at = Date(timeIntervalSince1970: 1_700_000_000)
            for (id, email, hash, created) in [(1, "ghost@t.slack.invalid", "", 0.0), (2, "first@example.com", "h", 10), (3, "later@example.com", "h", 20),
                                               (4, "imported@example.com", "", 30), (5, "gone@example.com", "", 40)] {
                try db.execute(sql: """
                    INSERT INTO users (id, email, email_key, nickname, password_hash, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [id, email, email, "n\(id)", hash, at.addingTimeInterval(created), at])
            }
            try db.execute(sql: "INSERT INTO workspaces (id, name, name_key, description, owner_id, created_at, updated_at) VALUES (1, 'W', 'w', '', 2, ?, ?)",
                           arguments: [at, at])
            for user in [2, 4] {
                try db.execute(sql: "INSERT INTO workspace_members (workspace_id, user_id, role, joined_at) VALUES (1, ?, 'member', ?)",
                               arguments: [user, at])
            }
        }
        try queue.close()
        let database = try AppDatabase.open(dataDirectory: folder.path)
        let rows = try database.read { db in
            try Row.fetchAll(db, sql: "SELECT email, is_admin, deactivated_at IS NOT NULL AS off, email_confirmed_at IS NOT NULL AS ok FROM users ORDER BY id")
        }
        #expect(rows.map { $0["email"] as String } == ["ghost@t.slack.invalid", "first@example.com", "later@example.com",
                                                       "imported@example.com", "gone@example.com"])
        #expect(rows.map { $0["is_admin"] as Bool } == [false, true, false, false, false])
        #expect(rows.map { $0["off"] as Bool } == [true, false, false, false, true])
        #expect(rows.allSatisfy { $0["ok"] as Bool })
    }
}
