import GRDB

extension AppDatabase {
    /// Migrations from 022 on: threads.
    static func registerThreadMigrations(_ migrator: inout DatabaseMigrator) {
        // 022: threads. A reply points at its thread's root (never at another reply) and is
        // left out of the room's timeline, paging and unread counts unless it was also sent to
        // the room (`in_timeline`). A root deleted while it has replies stays as a placeholder
        // (`deleted_at`, its text and files gone) so the replies keep their place; it goes
        // with its last reply. People follow a thread (they wrote in it or were mentioned);
        // each following keeps its own read marker and unread count: triggers recount it when
        // the marker moves or the following begins, and writing or deleting a reply counts it
        // (`ThreadRecords`; a trigger on messages would make every post of a room, reply or
        // not, a change to thread_follows for the caches that watch it). The room's unread
        // triggers learn to skip replies that stay in their thread and placeholders.
        migrator.registerMigration("022-threads") { db in
            let recount = """
                (SELECT COUNT(*) FROM messages WHERE messages.room_id = room_members.room_id
                   AND messages.id > room_members.last_read_message_id
                   AND (messages.author_id IS NULL OR messages.author_id <> room_members.user_id)
                   AND messages.in_timeline = 1 AND messages.deleted_at IS NULL)
                """
            let threadRecount = """
                (SELECT COUNT(*) FROM messages WHERE messages.thread_root_id = thread_follows.root_id
                   AND messages.id > thread_follows.last_read_id
                   AND (messages.author_id IS NULL OR messages.author_id <> thread_follows.user_id))
                """
            try db.execute(sql: """
                ALTER TABLE messages ADD COLUMN thread_root_id INTEGER REFERENCES messages(id) ON DELETE CASCADE;
                ALTER TABLE messages ADD COLUMN in_timeline INTEGER NOT NULL DEFAULT 1;
                ALTER TABLE messages ADD COLUMN deleted_at DATETIME;
                CREATE INDEX messages_by_thread ON messages(thread_root_id, id, author_id) WHERE thread_root_id IS NOT NULL;

                DROP TRIGGER messages_count_unread;
                DROP TRIGGER messages_uncount_unread;
                DROP TRIGGER messages_recount_unread;
                DROP TRIGGER room_members_recount_on_read;
                DROP TRIGGER room_members_count_on_join;
                CREATE TRIGGER messages_count_unread AFTER INSERT ON messages WHEN NEW.in_timeline = 1 BEGIN
                    UPDATE room_members SET unread_count = unread_count + 1
                    WHERE room_id = NEW.room_id AND last_read_message_id < NEW.id
                      AND (NEW.author_id IS NULL OR user_id <> NEW.author_id);
                END;
                CREATE TRIGGER messages_uncount_unread AFTER DELETE ON messages
                WHEN OLD.in_timeline = 1 AND OLD.deleted_at IS NULL BEGIN
                    UPDATE room_members SET unread_count = unread_count - 1
                    WHERE room_id = OLD.room_id AND last_read_message_id < OLD.id
                      AND (OLD.author_id IS NULL OR user_id <> OLD.author_id);
                END;
                CREATE TRIGGER messages_uncount_placeholder AFTER UPDATE OF deleted_at ON messages
                WHEN OLD.deleted_at IS NULL AND NEW.deleted_at IS NOT NULL AND NEW.in_timeline = 1 BEGIN
                    UPDATE room_members SET unread_count = unread_count - 1
                    WHERE room_id = NEW.room_id AND last_read_message_id < NEW.id
                      AND (NEW.author_id IS NULL OR user_id <> NEW.author_id);
                END;
                CREATE TRIGGER messages_recount_unread AFTER UPDATE OF room_id, author_id ON messages BEGIN
                    UPDATE room_members SET unread_count = \(recount) WHERE room_id IN (OLD.room_id, NEW.room_id);
                END;
                CREATE TRIGGER room_members_recount_on_read AFTER UPDATE OF last_read_message_id ON room_members BEGIN
                    UPDATE room_members SET unread_count = \(recount) WHERE room_id = NEW.room_id AND user_id = NEW.user_id;
                END;
                CREATE TRIGGER room_members_count_on_join AFTER INSERT ON room_members BEGIN
                    UPDATE room_members SET unread_count = \(recount) WHERE room_id = NEW.room_id AND user_id = NEW.user_id;
                END;

                CREATE TABLE thread_follows (
                    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    root_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
                    room_id INTEGER NOT NULL REFERENCES rooms(id) ON DELETE CASCADE,
                    last_read_id INTEGER NOT NULL DEFAULT 0,
                    unread_count INTEGER NOT NULL DEFAULT 0,
                    PRIMARY KEY (user_id, root_id)
                ) WITHOUT ROWID;
                CREATE INDEX thread_follows_by_root ON thread_follows(root_id);
                CREATE INDEX thread_follows_by_room ON thread_follows(room_id, user_id);
                CREATE TRIGGER thread_follows_recount_on_read AFTER UPDATE OF last_read_id ON thread_follows BEGIN
                    UPDATE thread_follows SET unread_count = \(threadRecount) WHERE user_id = NEW.user_id AND root_id = NEW.root_id;
                END;
                CREATE TRIGGER thread_follows_count_on_follow AFTER INSERT ON thread_follows BEGIN
                    UPDATE thread_follows SET unread_count = \(threadRecount) WHERE user_id = NEW.user_id AND root_id = NEW.root_id;
                END;
                """)
        }
        registerMailMigrations(&migrator)
    }
}
