import Foundation
import GRDB
import Testing
@testable import wsx_web

/// The same, for a database written by an older version: migration 010 scrubs what it left in
/// the outbox and puts removed-and-returned members back in their DMs. SQLite's own test (a
/// GRDB queue in memory, migrations' SQL); the replay scope itself is `ReplayScopeTests`.
@Suite("Replay scope: older databases", .timeLimit(.minutes(5)))
struct ReplayScopeMigrationTests {
    @Test("migrating drops deleted messages' events and words before an edit, sets replay floors and restores DMs")
    func migratesOldOutbox() throws {
        let queue = try DatabaseQueue()
        try AppDatabase.migrator.migrate(queue, upTo: "009-unread-counters")
        try queue.write { db in
            let t = "2026-11-01 10:00:00.000", later = "2026-11-02 10:00:00.000"
            try db.execute(sql: """
                INSERT INTO users (id, email, email_key, nickname, password_hash, created_at, updated_at)
                    VALUES (1, 'a@x', 'a@x', 'A', 'h', '\(t)', '\(t)'), (2, 'b@x', 'b@x', 'B', 'h', '\(t)', '\(t)');
                INSERT INTO workspaces (id, name, name_key, owner_id, created_at, updated_at) VALUES (1, 'W', 'w', 1, '\(t)', '\(t)');
                INSERT INTO workspace_members VALUES (1, 1, 'owner', '\(t)'), (1, 2, 'member', '\(later)');
                INSERT INTO rooms (id, workspace_id, kind, is_default, dm_key, created_at, updated_at)
                    VALUES (1, 1, 'channel', 1, NULL, '\(t)', '\(t)'), (2, 1, 'dm', 0, '1:2', '\(t)', '\(t)');
                INSERT INTO room_members (room_id, user_id, joined_at, last_read_message_id)
                    VALUES (1, 1, '\(t)', 0), (1, 2, '\(later)', 0), (2, 1, '\(t)', 0);
                INSERT INTO messages (id, room_id, author_id, body, body_html, created_at, edited_at)
                    VALUES (5, 1, 1, 'kept words', 'kept words', '\(t)', '\(later)');
                INSERT INTO events (id, type, room_id, payload, created_at) VALUES
                    (1, 'message.created', 1, '{"messageId":4,"html":"deleted words"}', '\(t)'),
                    (2, 'message.created', 1, '{"messageId":5,"html":"first words"}', '\(t)'),
                    (3, 'message.updated', 1, '{"messageId":5,"html":"kept words"}', '\(later)'),
                    (4, 'message.deleted', 1, '{"messageId":4}', '\(later)');
                """)
        }
        try AppDatabase.migrator.migrate(queue)
        let (payloads, messages, floors, dmMembers) = try queue.read { db in
            (try String.fetchAll(db, sql: "SELECT payload FROM events ORDER BY id"),
             try Int64.fetchAll(db, sql: "SELECT message_id FROM events ORDER BY id"),
             try Int64.fetchAll(db, sql: "SELECT joined_after_event FROM room_members WHERE room_id = 1 ORDER BY user_id"),
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM room_members WHERE room_id = 2"))
        }
        #expect(payloads == [#"{"messageId":5,"html":"kept words"}"#, #"{"messageId":4}"#])
        #expect(messages == [5, 4])
        // B joined the workspace after the first events: their floor is the newest before.
        #expect(floors == [0, 2])
        // B is back in the DM with A.
        #expect(dmMembers == 2)
    }
}
