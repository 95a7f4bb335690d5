import Foundation
import GRDB

extension AppDatabase {
    /// Migrations from 014 on: what conversations are made of beyond messages (reactions,
    /// threads, pins…).
    static func registerConversationMigrations(_ migrator: inout DatabaseMigrator) {
        // 014: reactions. One row per (message, person, emoji); they go with the message or the
        // person. Listed per message in the order they were made (by id: several can share a time).
        migrator.registerMigration("014-reactions") { db in
            try db.execute(sql: """
                CREATE TABLE reactions (
                    id INTEGER PRIMARY KEY,
                    message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
                    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    emoji TEXT NOT NULL,
                    created_at DATETIME NOT NULL,
                    UNIQUE (message_id, emoji, user_id)
                );
                CREATE INDEX reactions_by_message ON reactions(message_id, id);
                CREATE INDEX reactions_by_user ON reactions(user_id);
                """)
        }
        // 015: who each message mentions (by name, or as one of @here, @channel, @all), for the
        // Mentions view. Messages mentioned members before: their HTML says whom.
        migrator.registerMigration("015-mentions") { db in
            try db.execute(sql: """
                CREATE TABLE mentions (
                    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
                    PRIMARY KEY (user_id, message_id)
                ) WITHOUT ROWID;
                CREATE INDEX mentions_by_message ON mentions(message_id);
                """)
            let earlier = try Row.fetchAll(db, sql: """
                SELECT id, author_id, body_html FROM messages WHERE body_html LIKE '%<span class="mention" data-user="%'
                """)
            for row in earlier {
                let messageId: Int64 = row["id"], author: Int64? = row["author_id"], html: String = row["body_html"]
                for id in Self.mentionedIds(inHTML: html) where id != author {
                    try db.execute(sql: """
                        INSERT OR IGNORE INTO mentions (user_id, message_id) SELECT ?, ? WHERE EXISTS (SELECT 1 FROM users WHERE id = ?)
                        """, arguments: [id, messageId, id])
                }
            }
        }
        // 016: pinned messages (one pin per message, for the whole room) and each person's saved
        // messages. Both go with the message; a pin outlives the person who made it.
        migrator.registerMigration("016-pins-and-saved") { db in
            try db.execute(sql: """
                CREATE TABLE pins (
                    message_id INTEGER PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE,
                    room_id INTEGER NOT NULL REFERENCES rooms(id) ON DELETE CASCADE,
                    pinned_by INTEGER REFERENCES users(id) ON DELETE SET NULL,
                    created_at DATETIME NOT NULL
                );
                CREATE INDEX pins_by_room ON pins(room_id, created_at);
                CREATE TABLE saved_messages (
                    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
                    created_at DATETIME NOT NULL,
                    PRIMARY KEY (user_id, message_id)
                ) WITHOUT ROWID;
                CREATE INDEX saved_by_message ON saved_messages(message_id);
                """)
        }
        // 017: each person's custom status (an emoji and a few words), until it expires.
        migrator.registerMigration("017-user-statuses") { db in
            try db.execute(sql: """
                CREATE TABLE user_statuses (
                    user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
                    emoji TEXT NOT NULL,
                    text TEXT NOT NULL,
                    expires_at DATETIME,
                    updated_at DATETIME NOT NULL
                );
                """)
        }
        // 018: a channel is public (every workspace member may find, read and join it) or
        // private (only its members know it exists).
        migrator.registerMigration("018-private-channels") { db in
            try db.execute(sql: """
                ALTER TABLE rooms ADD COLUMN visibility TEXT NOT NULL DEFAULT 'public' CHECK (visibility IN ('public', 'private'));
                """)
        }
        // 019: an archived channel is kept, read-only, out of unread counts (NULL: in use).
        migrator.registerMigration("019-archived-channels") { db in
            try db.execute(sql: "ALTER TABLE rooms ADD COLUMN archived_at DATETIME")
        }
        // 020: group conversations of 3 to 9 people (kind 'group'). SQLite cannot change a
        // CHECK constraint in place, so `rooms` is rebuilt with every column it has, its
        // indexes made again, and its id sequence kept (an id of a deleted room is never given
        // out again: old events name rooms by id). The migrator runs this with foreign keys off
        // and checks them before it commits, so the tables that point at rooms keep their rows.
        // A group's `dm_key` is its current members' ids, sorted, joined by ":" (how "the group
        // with exactly these people" is found); unlike a pair's, it is not unique, since people
        // join and leave.
        migrator.registerMigration("020-group-conversations") { db in
            let sequence = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'rooms'")
            try db.execute(sql: """
                CREATE TABLE rooms_rebuilt (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    workspace_id INTEGER NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
                    kind TEXT NOT NULL CHECK (kind IN ('channel', 'dm', 'group')),
                    name TEXT NOT NULL DEFAULT '',
                    name_key TEXT NOT NULL DEFAULT '',
                    description TEXT NOT NULL DEFAULT '',
                    owner_id INTEGER REFERENCES users(id),
                    is_default INTEGER NOT NULL DEFAULT 0,
                    -- a pair's "smallerUserId:largerUserId" (unique), a group's members' ids
                    dm_key TEXT,
                    created_at DATETIME NOT NULL,
                    updated_at DATETIME NOT NULL,
                    cover_file_id INTEGER REFERENCES files(id) ON DELETE SET NULL,
                    visibility TEXT NOT NULL DEFAULT 'public' CHECK (visibility IN ('public', 'private')),
                    archived_at DATETIME
                );
                INSERT INTO rooms_rebuilt (id, workspace_id, kind, name, name_key, description, owner_id, is_default, dm_key,
                                           created_at, updated_at, cover_file_id, visibility, archived_at)
                    SELECT id, workspace_id, kind, name, name_key, description, owner_id, is_default, dm_key,
                           created_at, updated_at, cover_file_id, visibility, archived_at FROM rooms;
                DROP TABLE rooms;
                ALTER TABLE rooms_rebuilt RENAME TO rooms;
                CREATE UNIQUE INDEX rooms_channel_name ON rooms(workspace_id, name_key) WHERE kind = 'channel';
                CREATE UNIQUE INDEX rooms_dm_pair ON rooms(workspace_id, dm_key) WHERE kind = 'dm';
                CREATE UNIQUE INDEX rooms_one_default ON rooms(workspace_id) WHERE is_default = 1;
                CREATE INDEX rooms_group_members ON rooms(workspace_id, dm_key) WHERE kind = 'group';
                """)
            if let sequence {
                try db.execute(sql: "UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = 'rooms'", arguments: [sequence])
            }
        }
        // 021: a message's link preview: the card of its first http(s) link, fetched after it
        // was posted; its image is one of our files. Goes with its message; its author may
        // remove it.
        migrator.registerMigration("021-link-previews") { db in
            try db.execute(sql: """
                CREATE TABLE link_previews (
                    message_id INTEGER PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE,
                    url TEXT NOT NULL,
                    title TEXT NOT NULL,
                    description TEXT NOT NULL DEFAULT '',
                    site_name TEXT NOT NULL DEFAULT '',
                    image_file_id INTEGER REFERENCES files(id) ON DELETE SET NULL,
                    created_at DATETIME NOT NULL
                );
                CREATE INDEX link_previews_by_image ON link_previews(image_file_id) WHERE image_file_id IS NOT NULL;
                """)
        }
        registerThreadMigrations(&migrator)
    }

    /// The member ids of the mention spans in a message's HTML (what rendering wrote).
    static func mentionedIds(inHTML html: String) -> [Int64] {
        let marker = #"<span class="mention" data-user=""#
        var ids: [Int64] = []
        var rest = html[...]
        while let found = rest.range(of: marker) {
            rest = rest[found.upperBound...]
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            if rest.dropFirst(digits.count).first == "\"", let id = Int64(digits) { ids.append(id) }
        }
        return ids
    }
}
