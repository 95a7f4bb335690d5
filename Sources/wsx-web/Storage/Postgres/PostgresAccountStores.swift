import Foundation
import PostgresNIO

/// `AccountStore` on PostgreSQL: the rows of `users`.
struct PostgresAccountStore: AccountStore {
    let session: PostgresSession

    func users(ids: [Int64]) throws -> [User] {
        try session.run("SELECT \(unescaped: User.postgresColumns) FROM users WHERE id = ANY(\(ids))").map(User.init(postgres:))
    }

    func user(id: Int64) throws -> User? {
        try session.run("SELECT \(unescaped: User.postgresColumns) FROM users WHERE id = \(id)").first.map(User.init(postgres:))
    }

    func user(emailKey: String) throws -> User? {
        try session.run("SELECT \(unescaped: User.postgresColumns) FROM users WHERE email_key = \(emailKey)")
            .first.map(User.init(postgres:))
    }

    func confirmEmail(userId: Int64, at now: Date) throws {
        try session.run("UPDATE users SET email_confirmed_at = \(now) WHERE id = \(userId)")
    }

    func count() throws -> Int {
        try session.run("SELECT COUNT(*) FROM users")[0].decode(Int.self)
    }

    func hasAccount(emailKey: String) throws -> Bool {
        try !session.run("SELECT 1 FROM users WHERE email_key = \(emailKey)").isEmpty
    }

    func passwordlessUser(emailKey: String) throws -> User? {
        try session.run("SELECT \(unescaped: User.postgresColumns) FROM users WHERE email_key = \(emailKey) AND password_hash = ''")
            .first.map(User.init(postgres:))
    }

    func accounts(matching pattern: String, limit: Int) throws -> [AccountAdministration.Account] {
        try session.run("""
            SELECT id, email, nickname, is_admin, deactivated_at, last_seen_at, created_at,
                   (SELECT COUNT(*) FROM workspace_members WHERE user_id = users.id),
                   totp_enabled_at IS NOT NULL, password_hash <> ''
            FROM users
            WHERE (email_key LIKE \(pattern) ESCAPE '\\' OR lower(nickname) LIKE \(pattern) ESCAPE '\\') AND NOT is_bot
            ORDER BY deactivated_at IS NOT NULL, id DESC LIMIT \(limit)
            """).map { row in
            let (id, email, nickname, isAdmin, deactivatedAt, lastSeenAt, createdAt, workspaces, twoStep, hasPassword) =
                try row.decode((Int64, String, String, Bool, Date?, Date?, Date, Int, Bool, Bool).self)
            return AccountAdministration.Account(id: id, email: email, nickname: nickname, isAdmin: isAdmin,
                                                 deactivatedAt: deactivatedAt, lastSeenAt: lastSeenAt, createdAt: createdAt,
                                                 workspaces: workspaces, twoStep: twoStep, hasPassword: hasPassword)
        }
    }

    func insert(_ user: User) throws -> User {
        let rows = try DuplicateKey.mappedOnPostgres {
            try session.run("""
                INSERT INTO users (email, email_key, nickname, phone, password_hash, lang, coin_balance, avatar_file_id,
                                   notify_default, created_at, updated_at, is_admin, deactivated_at, email_confirmed_at,
                                   totp_enabled_at)
                VALUES (\(user.email), \(user.emailKey), \(user.nickname), \(user.phone), \(user.passwordHash), \(user.lang),
                        \(user.coinBalance), \(user.avatarFileId), \(user.notifyDefault), \(user.createdAt), \(user.updatedAt),
                        \(user.isAdmin), \(user.deactivatedAt), \(user.emailConfirmedAt), \(user.twoStepEnabledAt))
                RETURNING id
                """)
        }
        var inserted = user
        inserted.id = try rows.first?.decode(Int64.self)
        return inserted
    }

    func update(_ user: User) throws {
        guard let id = user.id else { return }
        try DuplicateKey.mappedOnPostgres {
            try session.run("""
                UPDATE users SET email = \(user.email), email_key = \(user.emailKey), nickname = \(user.nickname),
                    phone = \(user.phone), password_hash = \(user.passwordHash), lang = \(user.lang),
                    coin_balance = \(user.coinBalance), avatar_file_id = \(user.avatarFileId),
                    notify_default = \(user.notifyDefault), created_at = \(user.createdAt), updated_at = \(user.updatedAt),
                    is_admin = \(user.isAdmin), deactivated_at = \(user.deactivatedAt),
                    email_confirmed_at = \(user.emailConfirmedAt), totp_enabled_at = \(user.twoStepEnabledAt)
                WHERE id = \(id)
                """)
        }
    }

    func noteSeen(userId: Int64, at now: Date) throws {
        try session.run("UPDATE users SET last_seen_at = \(now) WHERE id = \(userId)")
    }

    func setPassword(hash: String, userId: Int64, at now: Date) throws {
        try session.run("UPDATE users SET password_hash = \(hash), updated_at = \(now) WHERE id = \(userId)")
    }

    func setLanguage(_ lang: String, userId: Int64) throws {
        try session.run("UPDATE users SET lang = \(lang) WHERE id = \(userId)")
    }

    func setMailDigest(_ on: Bool, userId: Int64) throws {
        try session.run("UPDATE users SET mail_digest = \(on) WHERE id = \(userId)")
    }

    func mailDigest(userId: Int64) throws -> Bool? {
        try session.run("SELECT mail_digest FROM users WHERE id = \(userId)").first?.decode(Bool.self)
    }

    func deactivate(userId: Int64, at now: Date) throws {
        try session.run("UPDATE users SET deactivated_at = \(now), updated_at = \(now) WHERE id = \(userId)")
    }

    func delete(userId: Int64) throws {
        try session.run("DELETE FROM users WHERE id = \(userId)")
    }

    func reactivate(userId: Int64, at now: Date) throws {
        try session.run("UPDATE users SET deactivated_at = NULL, updated_at = \(now) WHERE id = \(userId)")
    }

    func setAdministrator(_ admin: Bool, userId: Int64, at now: Date) throws {
        try session.run("UPDATE users SET is_admin = \(admin), updated_at = \(now) WHERE id = \(userId)")
    }

    func otherActiveAdministrators(besides userId: Int64) throws -> Int {
        try session.run("SELECT COUNT(*) FROM users WHERE is_admin AND deactivated_at IS NULL AND id <> \(userId)")[0].decode(Int.self)
    }

    func administratorEmails() throws -> [String] {
        try session.run("SELECT email FROM users WHERE is_admin AND deactivated_at IS NULL ORDER BY id").map { try $0.decode(String.self) }
    }
}

/// `StatusStore` on PostgreSQL: at most one row of `user_statuses` per person.
struct PostgresStatusStore: StatusStore {
    let session: PostgresSession

    func set(userId: Int64, emoji: String, text: String, expiresAt: Date?, at now: Date) throws {
        try session.run("""
            INSERT INTO user_statuses (user_id, emoji, text, expires_at, updated_at)
            VALUES (\(userId), \(emoji), \(text), \(expiresAt), \(now))
            ON CONFLICT (user_id) DO UPDATE SET emoji = excluded.emoji, text = excluded.text,
                expires_at = excluded.expires_at, updated_at = excluded.updated_at
            """)
    }

    func clear(userId: Int64) throws {
        try session.run("DELETE FROM user_statuses WHERE user_id = \(userId)")
    }

    func current(of userIds: [Int64], at now: Date) throws -> [Int64: UserStatus] {
        guard !userIds.isEmpty else { return [:] }
        var statuses: [Int64: UserStatus] = [:]
        for row in try session.run("""
            SELECT user_id, emoji, text, expires_at FROM user_statuses
            WHERE user_id = ANY(\(userIds)) AND (expires_at IS NULL OR expires_at > \(now))
            """) {
            let (userId, emoji, text, expiresAt) = try row.decode((Int64, String, String, Date?).self)
            statuses[userId] = UserStatus(emoji: emoji, text: text, expiresAt: expiresAt)
        }
        return statuses
    }

    func announcementRooms(userId: Int64) throws -> [Int64] {
        try session.run("""
            SELECT rooms.id FROM rooms JOIN workspace_members ON workspace_members.workspace_id = rooms.workspace_id
            WHERE rooms.is_default AND workspace_members.user_id = \(userId)
            ORDER BY rooms.id
            """).map { try $0.decode(Int64.self) }
    }
}

/// `TwoStepStore` on PostgreSQL: the secret and its state are columns of `users`, the codes rows
/// of `recovery_codes`.
struct PostgresTwoStepStore: TwoStepStore {
    let session: PostgresSession

    func state(userId: Int64) throws -> TwoStepState? {
        try session.run("SELECT totp_secret, totp_enabled_at, totp_last_step FROM users WHERE id = \(userId)").first.map { row in
            let (secret, enabledAt, lastStep) = try row.decode((String?, Date?, Int64).self)
            return TwoStepState(secret: secret, enabledAt: enabledAt, lastStep: lastStep)
        }
    }

    func setSecret(_ secret: String, userId: Int64) throws {
        try session.run("UPDATE users SET totp_secret = \(secret) WHERE id = \(userId)")
    }

    func enable(userId: Int64, step: Int64, at now: Date) throws {
        try session.run("UPDATE users SET totp_enabled_at = \(now), totp_last_step = \(step), updated_at = \(now) WHERE id = \(userId)")
    }

    func acceptStep(_ step: Int64, userId: Int64) throws {
        try session.run("UPDATE users SET totp_last_step = \(step) WHERE id = \(userId)")
    }

    func disable(userId: Int64, at now: Date) throws {
        try session.run("""
            UPDATE users SET totp_secret = NULL, totp_enabled_at = NULL, totp_last_step = 0, updated_at = \(now) WHERE id = \(userId)
            """)
        try session.run("DELETE FROM recovery_codes WHERE user_id = \(userId)")
    }

    func replaceRecoveryCodes(hashes: [String], userId: Int64) throws {
        try session.run("DELETE FROM recovery_codes WHERE user_id = \(userId)")
        try session.run("INSERT INTO recovery_codes (user_id, code_hash) SELECT \(userId), unnest(\(hashes)::text[])")
    }

    func useRecoveryCode(hash: String, userId: Int64, at now: Date) throws -> Bool {
        // One code at a time: a second sign-in racing with the same code finds it used.
        try !session.run("""
            UPDATE recovery_codes SET used_at = \(now)
            WHERE id = (SELECT id FROM recovery_codes WHERE user_id = \(userId) AND code_hash = \(hash) AND used_at IS NULL
                        ORDER BY id LIMIT 1 FOR UPDATE)
              AND used_at IS NULL
            RETURNING id
            """).isEmpty
    }

    func recoveryCodesLeft(userId: Int64) throws -> Int {
        try session.run("SELECT COUNT(*) FROM recovery_codes WHERE user_id = \(userId) AND used_at IS NULL")[0].decode(Int.self)
    }
}
