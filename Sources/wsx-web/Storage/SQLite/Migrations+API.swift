import GRDB

extension AppDatabase {
    /// Migrations from 033 on: the apps' API (issue 35).
    static func registerAPIMigrations(_ migrator: inout DatabaseMigrator) {
        // 033: `/v1` names accounts, workspaces, rooms and messages by opaque ids, never by the
        // sequential ids of the web's URLs: every row gets one now, and each new row as it is
        // inserted (SQLite refuses a random default on an added column, so a trigger fills it
        // when the insert gave none). The apps' sign-ins keep only their tokens' hashes, and
        // go with their account.
        migrator.registerMigration("033-app-api") { db in
            for table in ["users", "workspaces", "rooms", "messages"] { try addPublicIds(db, to: table) }
            try db.execute(sql: """
                CREATE TABLE app_sessions (
                    id INTEGER PRIMARY KEY,
                    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    access_hash TEXT NOT NULL UNIQUE,
                    refresh_hash TEXT NOT NULL UNIQUE,
                    access_expires_at DATETIME NOT NULL,
                    refresh_expires_at DATETIME NOT NULL,
                    device_token TEXT,
                    client TEXT,
                    created_at DATETIME NOT NULL,
                    used_at DATETIME NOT NULL
                );
                CREATE INDEX app_sessions_by_user ON app_sessions(user_id);
                CREATE INDEX app_sessions_by_expiry ON app_sessions(refresh_expires_at);
                """)
        }
        // 034: files too, for the paths `/v1` serves them at (`/static/<bucket>/<name>_<id>.<ext>`).
        migrator.registerMigration("034-file-public-ids") { db in
            try addPublicIds(db, to: "files")
        }
        // 035: incoming webhooks. Each posts into one room as a bot account of its own
        // (`users.is_bot`: it has no password and signs in nowhere; its messages say "bot"),
        // by a secret URL whose token is kept hashed. Revoking deletes the hook; its bot and its
        // messages stay.
        migrator.registerMigration("035-webhooks") { db in
            try db.execute(sql: """
                ALTER TABLE users ADD COLUMN is_bot INTEGER NOT NULL DEFAULT 0;
                CREATE TABLE webhooks (
                    id INTEGER PRIMARY KEY,
                    workspace_id INTEGER NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
                    room_id INTEGER NOT NULL REFERENCES rooms(id) ON DELETE CASCADE,
                    name TEXT NOT NULL,
                    token_hash TEXT NOT NULL UNIQUE,
                    bot_user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    created_by INTEGER REFERENCES users(id) ON DELETE SET NULL,
                    created_at DATETIME NOT NULL,
                    last_used_at DATETIME
                );
                CREATE INDEX webhooks_by_room ON webhooks(room_id);
                CREATE INDEX webhooks_by_bot ON webhooks(bot_user_id);
                """)
        }
        // 036: accounts the apps sign in to with Kakao or Apple: the provider's id of the person.
        migrator.registerMigration("036-social-logins") { db in
            try db.execute(sql: """
                CREATE TABLE social_logins (
                    provider TEXT NOT NULL,
                    subject TEXT NOT NULL,
                    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    created_at DATETIME NOT NULL,
                    PRIMARY KEY (provider, subject)
                );
                CREATE INDEX social_logins_by_user ON social_logins(user_id);
                """)
        }
        // 037: app passwords, for accounts with two-step sign-in to sign in to the apps (which
        // ask for no code): one per device, random, kept as their SHA-256; an app's sign-in made
        // with one ends when it is revoked.
        migrator.registerMigration("037-app-passwords") { db in
            try db.execute(sql: """
                CREATE TABLE app_passwords (
                    id INTEGER PRIMARY KEY,
                    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    name TEXT NOT NULL,
                    password_hash TEXT NOT NULL UNIQUE,
                    created_at DATETIME NOT NULL,
                    last_used_at DATETIME
                );
                CREATE INDEX app_passwords_by_user ON app_passwords(user_id);
                ALTER TABLE app_sessions ADD COLUMN app_password_id INTEGER REFERENCES app_passwords(id) ON DELETE CASCADE;
                CREATE INDEX app_sessions_by_app_password ON app_sessions(app_password_id);
                """)
        }
    }

    /// Adds `public_id` to `table`: filled for every row there, and for every row inserted without one.
    private static func addPublicIds(_ db: Database, to table: String) throws {
        try db.execute(sql: """
            ALTER TABLE \(table) ADD COLUMN public_id TEXT;
            UPDATE \(table) SET public_id = \(Self.newPublicId);
            CREATE UNIQUE INDEX \(table)_by_public_id ON \(table)(public_id);
            CREATE TRIGGER \(table)_public_id AFTER INSERT ON \(table) WHEN NEW.public_id IS NULL BEGIN
                UPDATE \(table) SET public_id = \(Self.newPublicId) WHERE id = NEW.id;
            END;
            """)
    }

    /// 24 hexadecimal digits from SQLite's random source: an opaque id.
    private static let newPublicId = "lower(hex(randomblob(12)))"
}
