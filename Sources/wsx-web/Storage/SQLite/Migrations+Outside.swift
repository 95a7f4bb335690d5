import GRDB

extension AppDatabase {
    /// Migrations from 026 on: writes by commands run beside a server.
    static func registerOutsideMigrations(_ migrator: inout DatabaseMigrator) {
        // 026: real-time events that a command (`wsx-web coins grant`) wrote in the same
        // transaction as its change, for the server to relay through its own outbox
        // (`OutsideEvents`). Written into `events` directly they would never reach the hub,
        // which learns of events from the commits of its own process, and their ids would be
        // gaps in its stream.
        migrator.registerMigration("026-outside-events") { db in
            try db.execute(sql: """
                CREATE TABLE outside_events (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    type TEXT NOT NULL,
                    room_id INTEGER,
                    user_id INTEGER,
                    payload TEXT NOT NULL,
                    message_id INTEGER,
                    created_at DATETIME NOT NULL,
                    CHECK ((room_id IS NULL) <> (user_id IS NULL))
                );
                """)
        }
        registerTrustMigrations(&migrator)
        registerPhoneMigrations(&migrator)
        registerAPIMigrations(&migrator)
    }
}
