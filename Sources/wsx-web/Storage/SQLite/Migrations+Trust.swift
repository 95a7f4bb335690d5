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
        // 029: accounts an administrator controls. Server administrators (`is_admin`); accounts
        // deactivated by one (`deactivated_at`: no sign-in, sessions gone, history kept); when
        // an address was confirmed by mail (accounts made before count as confirmed); when the
        // person was last seen. An invitation the Slack import made for an account it made
        // (`claims_account`) is the only one that lets its person choose the first password.
        // `security_log`: sign-ins, administrators' actions, two-step changes, server-wide.
        // `email_confirmations`: one-time links mailed to confirm an address.
        // The earliest active account becomes the administrator; accounts an import made for
        // people no workspace has (deleted Slack users, bots, people without an address) are
        // deactivated, so nobody claims them through "Forgot password".
        migrator.registerMigration("029-accounts") { db in
            // Mail gains a kind (address confirmations); SQLite changes a CHECK by copying the table.
            try db.execute(sql: """
                CREATE TABLE mail_outbox_new (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    kind TEXT NOT NULL CHECK (kind IN ('invitation', 'password_reset', 'digest', 'email_confirmation')),
                    recipient TEXT NOT NULL,
                    workspace_id INTEGER REFERENCES workspaces(id) ON DELETE CASCADE,
                    message TEXT NOT NULL,
                    attempts INTEGER NOT NULL DEFAULT 0,
                    next_attempt_at DATETIME NOT NULL,
                    last_error TEXT,
                    sent_at DATETIME,
                    failed_at DATETIME,
                    created_at DATETIME NOT NULL,
                    failure TEXT,
                    cleared_at DATETIME
                );
                INSERT INTO mail_outbox_new SELECT id, kind, recipient, workspace_id, message, attempts, next_attempt_at, last_error,
                    sent_at, failed_at, created_at, failure, cleared_at FROM mail_outbox;
                DROP TABLE mail_outbox;
                ALTER TABLE mail_outbox_new RENAME TO mail_outbox;
                CREATE INDEX mail_outbox_due ON mail_outbox(next_attempt_at) WHERE sent_at IS NULL AND failed_at IS NULL;
                CREATE INDEX mail_outbox_by_workspace ON mail_outbox(workspace_id, failed_at) WHERE workspace_id IS NOT NULL;
                CREATE INDEX mail_outbox_failures ON mail_outbox(failed_at) WHERE failed_at IS NOT NULL AND cleared_at IS NULL;
                """)
            try db.execute(sql: """
                ALTER TABLE users ADD COLUMN is_admin INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE users ADD COLUMN deactivated_at DATETIME;
                ALTER TABLE users ADD COLUMN email_confirmed_at DATETIME;
                ALTER TABLE users ADD COLUMN last_seen_at DATETIME;
                ALTER TABLE invites ADD COLUMN claims_account INTEGER NOT NULL DEFAULT 0;
                UPDATE users SET email_confirmed_at = created_at;
                UPDATE users SET deactivated_at = CURRENT_TIMESTAMP
                WHERE password_hash = '' AND (email_key LIKE '%.slack.invalid'
                       OR NOT EXISTS (SELECT 1 FROM workspace_members WHERE workspace_members.user_id = users.id));
                UPDATE users SET is_admin = 1 WHERE id = (
                    SELECT id FROM users WHERE deactivated_at IS NULL AND password_hash <> '' ORDER BY created_at, id LIMIT 1);
                UPDATE invites SET claims_account = 1
                WHERE EXISTS (SELECT 1 FROM users WHERE users.email_key = invites.email_key AND users.password_hash = ''
                              AND users.deactivated_at IS NULL)
                  AND EXISTS (SELECT 1 FROM workspace_members JOIN users ON users.id = workspace_members.user_id
                              WHERE users.email_key = invites.email_key AND workspace_members.workspace_id = invites.workspace_id);
                CREATE TABLE security_log (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    action TEXT NOT NULL,
                    actor_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
                    target_user_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
                    workspace_id INTEGER,
                    -- the client's address, and for a sign-in the address typed (at most 254 bytes)
                    address TEXT NOT NULL DEFAULT '',
                    email TEXT NOT NULL DEFAULT '',
                    detail TEXT NOT NULL DEFAULT '',
                    created_at DATETIME NOT NULL
                );
                CREATE INDEX security_log_by_time ON security_log(created_at, id);
                CREATE TABLE email_confirmations (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    token_hash TEXT NOT NULL UNIQUE,
                    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    email_key TEXT NOT NULL,
                    created_at DATETIME NOT NULL,
                    expires_at DATETIME NOT NULL,
                    used_at DATETIME
                );
                """)
        }
        // 030: two-step sign-in (TOTP, RFC 6238): the secret (base32), when it was turned on,
        // the last time step a code was accepted for (each code works once), and ten single-use
        // recovery codes, kept as hashes.
        migrator.registerMigration("030-two-step") { db in
            try db.execute(sql: """
                ALTER TABLE users ADD COLUMN totp_secret TEXT;
                ALTER TABLE users ADD COLUMN totp_enabled_at DATETIME;
                ALTER TABLE users ADD COLUMN totp_last_step INTEGER NOT NULL DEFAULT 0;
                CREATE TABLE recovery_codes (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                    code_hash TEXT NOT NULL,
                    used_at DATETIME
                );
                CREATE INDEX recovery_codes_by_user ON recovery_codes(user_id);
                ALTER TABLE outside_events ADD COLUMN closes_sessions TEXT NOT NULL DEFAULT '';
                """)
        }
    }
}
