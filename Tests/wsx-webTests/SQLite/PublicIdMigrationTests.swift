import Foundation
import GRDB
import Testing
@testable import wsx_web

/// Migration 033 on a database written before it: every account, workspace, room and message
/// gets an opaque id for `/v1`, and so does every row inserted afterwards (SQLite's own test).
@Suite("Opaque ids: older databases", .timeLimit(.minutes(5)))
struct PublicIdMigrationTests {
    @Test("rows already there get distinct 24-digit ids; rows inserted later get theirs at once; an id given is kept")
    func existingAndNewRows() throws {
        let queue = try OlderDatabase.migrated(upTo: "032-web-push")
        let t = OlderDatabase.time
        try queue.write { db in
            try db.execute(sql: OlderDatabase.twoPeopleAndAWorkspace)
            try db.execute(sql: """
                INSERT INTO rooms (id, workspace_id, kind, name, name_key, is_default, created_at, updated_at)
                    VALUES (1, 1, 'channel', '일반', '일반', 1, '\(t)', '\(t)');
                INSERT INTO messages (id, room_id, author_id, body, body_html, created_at) VALUES (1, 1, 1, '첫 글', '첫 글', '\(t)');
                """)
        }
        try AppDatabase.migrator.migrate(queue)
        try queue.write { db in
            let before = try String.fetchAll(db, sql: """
                SELECT public_id FROM users UNION ALL SELECT public_id FROM workspaces
                UNION ALL SELECT public_id FROM rooms UNION ALL SELECT public_id FROM messages
                """)
            #expect(before.count == 5 && Set(before).count == 5)
            #expect(before.allSatisfy { $0.count == 24 && $0.allSatisfy(\.isHexDigit) })
            try db.execute(sql: """
                INSERT INTO messages (id, room_id, author_id, body, body_html, created_at) VALUES (2, 1, 2, '둘째', '둘째', '\(t)');
                INSERT INTO users (id, email, email_key, nickname, password_hash, created_at, updated_at, public_id)
                    VALUES (3, 'c@x', 'c@x', 'C', 'h', '\(t)', '\(t)', 'copiedfromanothersrv0001');
                """)
            let added = try String.fetchOne(db, sql: "SELECT public_id FROM messages WHERE id = 2")
            #expect(added?.count == 24 && !before.contains(added ?? ""))
            #expect(try String.fetchOne(db, sql: "SELECT public_id FROM users WHERE id = 3") == "copiedfromanothersrv0001")
            #expect(throws: DatabaseError.self, "one id, one row") {
                try db.execute(sql: "UPDATE users SET public_id = 'copiedfromanothersrv0001' WHERE id = 1")
            }
        }
    }
}
