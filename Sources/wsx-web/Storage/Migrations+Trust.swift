import GRDB

extension AppDatabase {
    /// Migrations from 027 on: trust (issue 31).
    static func registerTrustMigrations(_ migrator: inout DatabaseMigrator) {
        // 027: mail given up on says why in words people can act on (`failure`: refused,
        // unreachable, timed_out, closed, tls, login; `last_error` keeps the server's own text
        // for operators), and stops being listed once a later mail of the same kind reached the
        // same address (`cleared_at`). Older failures read as refused.
        migrator.registerMigration("027-mail-failures") { db in
            try db.execute(sql: """
                ALTER TABLE mail_outbox ADD COLUMN failure TEXT;
                ALTER TABLE mail_outbox ADD COLUMN cleared_at DATETIME;
                UPDATE mail_outbox SET failure = 'refused' WHERE failed_at IS NOT NULL;
                CREATE INDEX mail_outbox_failures ON mail_outbox(failed_at) WHERE failed_at IS NOT NULL AND cleared_at IS NULL;
                """)
        }
        // 028: a message counts its edits (at most `MessageService.maximumEdits`).
        migrator.registerMigration("028-edit-count") { db in
            try db.execute(sql: "ALTER TABLE messages ADD COLUMN edit_count INTEGER NOT NULL DEFAULT 0")
        }
    }
}
