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
    }
}
