import GRDB

extension AppDatabase {
    /// Migrations from 010 on (the file before it reached its size).
    static func registerLaterMigrations(_ migrator: inout DatabaseMigrator) {
        // 010: replay reaches only what a member may read now. Message events name their
        // message, so deleting or editing it takes its text out of earlier events (and events of
        // messages deleted before this migration, or edited, lose their old text now); every room
        // member remembers the newest event id when they joined, and replay never reaches the
        // room's events before it. Members removed from a workspace and back again are in their
        // direct messages again.
        migrator.registerMigration("010-replay-scope") { db in
            try db.execute(sql: """
                ALTER TABLE events ADD COLUMN message_id INTEGER;
                UPDATE events SET message_id = json_extract(payload, '$.messageId')
                    WHERE type IN ('message.created', 'message.updated', 'message.deleted');
                CREATE INDEX events_by_message ON events(message_id) WHERE message_id IS NOT NULL;

                ALTER TABLE room_members ADD COLUMN joined_after_event INTEGER NOT NULL DEFAULT 0;
                UPDATE room_members SET joined_after_event =
                    COALESCE((SELECT MAX(id) FROM events WHERE events.created_at < room_members.joined_at), 0);
                CREATE TRIGGER room_members_replay_floor AFTER INSERT ON room_members BEGIN
                    UPDATE room_members SET joined_after_event = COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'events'), 0)
                    WHERE room_id = NEW.room_id AND user_id = NEW.user_id;
                END;

                DELETE FROM events WHERE type IN ('message.created', 'message.updated')
                    AND (message_id NOT IN (SELECT id FROM messages)
                         OR id < (SELECT MAX(later.id) FROM events AS later
                                  WHERE later.message_id = events.message_id AND later.type = 'message.updated'));

                INSERT INTO room_members (room_id, user_id, joined_at, last_read_message_id)
                    SELECT rooms.id, workspace_members.user_id, workspace_members.joined_at,
                           COALESCE((SELECT MAX(id) FROM messages WHERE messages.room_id = rooms.id), 0)
                    FROM rooms JOIN workspace_members ON workspace_members.workspace_id = rooms.workspace_id
                    WHERE rooms.kind = 'dm'
                      AND (rooms.dm_key = workspace_members.user_id || ':' || substr(rooms.dm_key, instr(rooms.dm_key, ':') + 1)
                           OR rooms.dm_key = substr(rooms.dm_key, 1, instr(rooms.dm_key, ':') - 1) || ':' || workspace_members.user_id)
                      AND NOT EXISTS (SELECT 1 FROM room_members WHERE room_members.room_id = rooms.id
                                      AND room_members.user_id = workspace_members.user_id);
                """)
        }
        // 011: invitations ask before they add. Each remembers the invited address's key (to
        // list it for the person it is for) and a nonce its token is made from with the server's
        // key (so the link can be shown to them again; the database alone cannot make it), and
        // when it was declined.
        migrator.registerMigration("011-invitation-consent") { db in
            try db.execute(sql: """
                ALTER TABLE invites ADD COLUMN email_key TEXT NOT NULL DEFAULT '';
                UPDATE invites SET email_key = lower(email);
                ALTER TABLE invites ADD COLUMN token_nonce TEXT;
                ALTER TABLE invites ADD COLUMN declined_at DATETIME;
                CREATE INDEX invites_by_email ON invites(email_key, workspace_id);
                """)
        }
        // 012: how rooms notify. Each membership may name its own level; NULL follows the
        // person's default, which starts at mentions and DMs.
        migrator.registerMigration("012-notify-levels") { db in
            try db.execute(sql: """
                ALTER TABLE room_members ADD COLUMN notify_level TEXT
                    CHECK (notify_level IN ('all', 'mentions', 'mute'));
                ALTER TABLE users ADD COLUMN notify_default TEXT NOT NULL DEFAULT 'mentions'
                    CHECK (notify_default IN ('all', 'mentions', 'mute'));
                """)
        }
        // 013: a post may carry the id its client gave it, unique per author, so a retry after
        // a lost answer finds the message instead of posting it twice.
        migrator.registerMigration("013-client-ids") { db in
            try db.execute(sql: """
                ALTER TABLE messages ADD COLUMN client_id TEXT;
                CREATE UNIQUE INDEX messages_by_client_id ON messages(author_id, client_id) WHERE client_id IS NOT NULL;
                """)
        }
    }
}
