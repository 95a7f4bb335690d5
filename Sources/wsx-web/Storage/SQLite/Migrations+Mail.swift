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
        // 024: an owner can take an invitation back (`revoked_at`: its link stops working), and
        // each workspace can have one open join link (its token made from a nonce with the
        // server's key, like invitations'; an expiry and a use limit, both optional; reset makes
        // a new token and the old one stops working).
        migrator.registerMigration("024-join-links") { db in
            try db.execute(sql: """
                ALTER TABLE invites ADD COLUMN revoked_at DATETIME;
                CREATE TABLE join_links (
                    workspace_id INTEGER PRIMARY KEY REFERENCES workspaces(id) ON DELETE CASCADE,
                    token_hash TEXT NOT NULL UNIQUE,
                    token_nonce TEXT NOT NULL,
                    expires_at DATETIME,
                    max_uses INTEGER,
                    uses INTEGER NOT NULL DEFAULT 0,
                    created_by INTEGER REFERENCES users(id) ON DELETE SET NULL,
                    created_at DATETIME NOT NULL
                );
                """)
        }
        registerSlackMigrations(&migrator)
    }
}
