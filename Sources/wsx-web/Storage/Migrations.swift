import GRDB

extension AppDatabase {
    /// Every schema change, append-only and named by number. Never edit a migration that has
    /// shipped: add the next one.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()

        // 001: accounts and the sessions that sign them in, and one-time password reset links.
        migrator.registerMigration("001-accounts") { db in
            try db.execute(sql: """
                CREATE TABLE users (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    email TEXT NOT NULL,
                    -- the email lowercased: makes uniqueness case-insensitive for any script
                    email_key TEXT NOT NULL UNIQUE,
                    nickname TEXT NOT NULL,
                    phone TEXT,
                    password_hash TEXT NOT NULL,
                    -- the UI language the user chose (ko, en), NULL until they choose
                    lang TEXT,
                    created_at DATETIME NOT NULL,
                    updated_at DATETIME NOT NULL
                );
                CREATE TABLE sessions (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    -- SHA-256 of the cookie's token: a stolen database does not sign anyone in
                    token_hash TEXT NOT NULL UNIQUE,
                    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    csrf_token TEXT NOT NULL,
                    user_agent TEXT,
                    created_at DATETIME NOT NULL,
                    refreshed_at DATETIME NOT NULL,
                    expires_at DATETIME NOT NULL
                );
                CREATE INDEX sessions_by_user ON sessions(user_id);
                CREATE TABLE password_resets (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    token_hash TEXT NOT NULL UNIQUE,
                    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    created_at DATETIME NOT NULL,
                    expires_at DATETIME NOT NULL,
                    used_at DATETIME
                );
                """)
        }
        // 002: the real-time outbox. Every change another tab must see writes an event here in
        // the same transaction as the change; event ids are the SSE ids. Audience: one room or
        // one user. `event_retention` remembers how far old events were pruned, so a client
        // asking to resume from before that point is told to reload instead of missing events.
        migrator.registerMigration("002-events") { db in
            try db.execute(sql: """
                CREATE TABLE events (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    type TEXT NOT NULL,
                    room_id INTEGER,
                    user_id INTEGER,
                    payload TEXT NOT NULL,
                    created_at DATETIME NOT NULL,
                    CHECK ((room_id IS NULL) <> (user_id IS NULL))
                );
                CREATE INDEX events_by_user ON events(user_id, id) WHERE user_id IS NOT NULL;
                CREATE INDEX events_by_room ON events(room_id, id) WHERE room_id IS NOT NULL;
                CREATE INDEX events_by_time ON events(created_at);
                CREATE TABLE event_retention (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    pruned_through INTEGER NOT NULL
                );
                INSERT INTO event_retention (id, pruned_through) VALUES (1, 0);
                """)
        }
        return migrator
    }
}
