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
