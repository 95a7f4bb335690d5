import Foundation
import GRDB
import Testing
@testable import wsx_web

/// Migration 020 rebuilds `rooms` to allow groups: every room, its messages and members stay,
/// and ids of deleted rooms are not given out again. SQLite's own test: it migrates a database
/// of its own (`DatabaseQueue`) and checks SQLite's row ids and indexes.
@Suite("Group conversations: older databases", .timeLimit(.minutes(5)))
struct GroupConversationMigrationTests {
    @Test("rooms, their messages and members survive the rebuild; the id sequence is kept")
    func rebuildKeepsEverything() throws {
        let queue = try OlderDatabase.migrated(upTo: "019-archived-channels")
        let t = OlderDatabase.time
        try queue.write { db in
            try db.execute(sql: OlderDatabase.twoPeopleAndAWorkspace)
            try db.execute(sql: """
                INSERT INTO workspace_members VALUES (1, 1, 'owner', '\(t)'), (1, 2, 'member', '\(t)');
                INSERT INTO rooms (id, workspace_id, kind, name, name_key, is_default, dm_key, created_at, updated_at,
                                   visibility, archived_at)
                    VALUES (1, 1, 'channel', 'general', 'general', 1, NULL, '\(t)', '\(t)', 'public', NULL),
                           (2, 1, 'dm', '', '', 0, '1:2', '\(t)', '\(t)', 'public', NULL),
                           (3, 1, 'channel', 'old', 'old', 0, NULL, '\(t)', '\(t)', 'private', '\(t)'),
                           (9, 1, 'channel', 'gone', 'gone', 0, NULL, '\(t)', '\(t)', 'public', NULL);
                DELETE FROM rooms WHERE id = 9;
                INSERT INTO room_members (room_id, user_id, joined_at, last_read_message_id)
                    VALUES (1, 1, '\(t)', 0), (1, 2, '\(t)', 0), (2, 1, '\(t)', 0), (2, 2, '\(t)', 0);
                INSERT INTO messages (id, room_id, author_id, body, body_html, created_at)
                    VALUES (1, 1, 1, 'hello', 'hello', '\(t)'), (2, 2, 2, 'psst', 'psst', '\(t)');
                """)
        }
        try AppDatabase.migrator.migrate(queue)
        try queue.write { db in
            #expect(try String.fetchAll(db, sql: "SELECT kind || ':' || visibility || ':' || (archived_at IS NOT NULL) FROM rooms ORDER BY id")
                    == ["channel:public:0", "dm:public:0", "channel:private:1"])
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM messages") == 2)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM room_members") == 4)
            #expect(try Int.fetchOne(db, sql: "SELECT unread_count FROM room_members WHERE room_id = 2 AND user_id = 1") == 1)
            // Still one DM per pair, one channel per name.
            #expect(throws: DatabaseError.self) {
                try db.execute(sql: "INSERT INTO rooms (workspace_id, kind, dm_key, created_at, updated_at) VALUES (1, 'dm', '1:2', '\(t)', '\(t)')")
            }
            try db.execute(sql: "INSERT INTO rooms (workspace_id, kind, dm_key, created_at, updated_at) VALUES (1, 'group', '1:2', '\(t)', '\(t)')")
            #expect(db.lastInsertedRowID == 10)
            // Deleting a room still takes its messages with it.
            try db.execute(sql: "DELETE FROM rooms WHERE id = 2")
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM messages") == 1)
            #expect(try db.indexes(on: "rooms").map(\.name).sorted()
                    == ["rooms_by_public_id", "rooms_channel_name", "rooms_dm_pair", "rooms_group_members", "rooms_one_default"])
        }
    }
}
