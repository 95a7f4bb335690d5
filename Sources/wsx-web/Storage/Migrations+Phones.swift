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
    }
}
