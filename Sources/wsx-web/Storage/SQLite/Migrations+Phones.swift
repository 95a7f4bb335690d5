import GRDB

extension AppDatabase {
    /// Migrations from 031 on: phones (issue 32).
    static func registerPhoneMigrations(_ migrator: inout DatabaseMigrator) {
        // 031: the room each person viewed last, where signing in (and `/`) opens. A table of
        // its own: nothing shown reads it, so its writes leave every cache of pages alone
        // (`AppDatabase.version` does not count them).
        migrator.registerMigration("031-last-rooms") { db in
            try db.execute(sql: """
                CREATE TABLE last_rooms (
                    user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
                    room_id INTEGER NOT NULL REFERENCES rooms(id) ON DELETE CASCADE
                );
                CREATE INDEX last_rooms_by_room ON last_rooms(room_id);
                """)
        }
        // 032: Web Push. A browser's subscription (its push service's URL and the keys a message
        // is sealed with) belongs to the session that made it, and goes with it (signing out);
        // the queue holds sealed-to-be payloads until their push service took them, retried with
        // backoff. No page reads either (`AppDatabase.version` does not count them).
        migrator.registerMigration("032-web-push") { db in
            try db.execute(sql: """
                CREATE TABLE push_subscriptions (
                    id INTEGER PRIMARY KEY,
                    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    session_id INTEGER REFERENCES sessions(id) ON DELETE CASCADE,
                    endpoint TEXT NOT NULL UNIQUE,
                    p256dh BLOB NOT NULL,
                    auth BLOB NOT NULL,
                    created_at DATETIME NOT NULL
                );
                CREATE INDEX push_subscriptions_by_user ON push_subscriptions(user_id);
                CREATE INDEX push_subscriptions_by_session ON push_subscriptions(session_id);
                CREATE TABLE push_queue (
                    id INTEGER PRIMARY KEY,
                    subscription_id INTEGER NOT NULL REFERENCES push_subscriptions(id) ON DELETE CASCADE,
                    payload TEXT NOT NULL,
                    attempts INTEGER NOT NULL DEFAULT 0,
                    next_attempt_at DATETIME NOT NULL,
                    created_at DATETIME NOT NULL
                );
                CREATE INDEX push_queue_by_time ON push_queue(next_attempt_at);
                CREATE INDEX push_queue_by_subscription ON push_queue(subscription_id);
                """)
        }
    }
}
