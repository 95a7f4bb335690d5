import GRDB

extension AppDatabase {
    /// Migrations from 023 on: mail.
    static func registerMailMigrations(_ migrator: inout DatabaseMigrator) {
        // 023: mail goes through a queue in the database, written in the transaction (or right
        // after the one) that made it, and sent by a background sender that retries with backoff;
        // a mail that keeps failing is kept with its last error for the owner to see. A sent
        // mail's text is emptied (reset links are secrets). Each person can turn off the digest
        // of mentions and direct messages mailed while they are away, and the digest remembers
        // the newest message it told them of.
        migrator.registerMigration("023-mail") { db in
            try db.execute(sql: """
                CREATE TABLE mail_outbox (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    kind TEXT NOT NULL CHECK (kind IN ('invitation', 'password_reset', 'digest')),
                    recipient TEXT NOT NULL,
                    workspace_id INTEGER REFERENCES workspaces(id) ON DELETE CASCADE,
                    message TEXT NOT NULL,
                    attempts INTEGER NOT NULL DEFAULT 0,
                    next_attempt_at DATETIME NOT NULL,
                    last_error TEXT,
                    sent_at DATETIME,
                    failed_at DATETIME,
                    created_at DATETIME NOT NULL
                );
                CREATE INDEX mail_outbox_due ON mail_outbox(next_attempt_at) WHERE sent_at IS NULL AND failed_at IS NULL;
                CREATE INDEX mail_outbox_by_workspace ON mail_outbox(workspace_id, failed_at) WHERE workspace_id IS NOT NULL;
                ALTER TABLE users ADD COLUMN mail_digest INTEGER NOT NULL DEFAULT 1;
                ALTER TABLE users ADD COLUMN digest_through INTEGER NOT NULL DEFAULT 0;
                """)
        }
    }
}
