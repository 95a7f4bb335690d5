import Foundation
import GRDB

/// `AccountStore` on SQLite.
struct SQLiteAccountStore: AccountStore {
    let db: Database

    func users(ids: [Int64]) throws -> [User] {
        try User.fetchAll(db, keys: ids)
    }

    func user(id: Int64) throws -> User? {
        try User.fetchOne(db, key: id)
    }

    func user(emailKey: String) throws -> User? {
        try User.filter(User.CodingKeys.emailKey == emailKey).fetchOne(db)
    }

    func confirmEmail(userId: Int64, at now: Date) throws {
        try db.execute(sql: "UPDATE users SET email_confirmed_at = ? WHERE id = ?", arguments: [now, userId])
    }

    func count() throws -> Int {
        try User.fetchCount(db)
    }

    func hasAccount(emailKey: String) throws -> Bool {
        try User.filter(User.CodingKeys.emailKey == emailKey).fetchCount(db) > 0
    }

    func passwordlessUser(emailKey: String) throws -> User? {
        try User.filter(User.CodingKeys.emailKey == emailKey && User.CodingKeys.passwordHash == "").fetchOne(db)
    }

    func accounts(matching pattern: String, limit: Int) throws -> [AccountAdministration.Account] {
        try Row.fetchAll(db, sql: """
            SELECT users.*, (SELECT COUNT(*) FROM workspace_members WHERE user_id = users.id) AS workspace_count
            FROM users
            WHERE (users.email_key LIKE ? ESCAPE '\\' OR lower(users.nickname) LIKE ? ESCAPE '\\') AND NOT users.is_bot
            ORDER BY users.deactivated_at IS NOT NULL, users.id DESC LIMIT ?
            """, arguments: [pattern, pattern, limit]).map { row in
            AccountAdministration.Account(
                id: row["id"], email: row["email"], nickname: row["nickname"], isAdmin: row["is_admin"],
                deactivatedAt: row["deactivated_at"], lastSeenAt: row["last_seen_at"], createdAt: row["created_at"],
                workspaces: row["workspace_count"], twoStep: (row["totp_enabled_at"] as Date?) != nil,
                hasPassword: !(row["password_hash"] as String).isEmpty)
        }
    }

    func insert(_ user: User) throws -> User {
        try DuplicateKey.mapped { try user.inserted(db) }
    }

    func update(_ user: User) throws {
        try user.update(db)
    }

    func noteSeen(userId: Int64, at now: Date) throws {
        try db.execute(sql: "UPDATE users SET last_seen_at = ? WHERE id = ?", arguments: [now, userId])
    }

    func setPassword(hash: String, userId: Int64, at now: Date) throws {
        try User.filter(key: userId).updateAll(db, User.CodingKeys.passwordHash.set(to: hash),
                                               User.CodingKeys.updatedAt.set(to: now))
    }

    func setLanguage(_ lang: String, userId: Int64) throws {
        try User.filter(key: userId).updateAll(db, User.CodingKeys.lang.set(to: lang))
    }

    func setMailDigest(_ on: Bool, userId: Int64) throws {
        try db.execute(sql: "UPDATE users SET mail_digest = ? WHERE id = ?", arguments: [on, userId])
    }

    func mailDigest(userId: Int64) throws -> Bool? {
        try Bool.fetchOne(db, sql: "SELECT mail_digest FROM users WHERE id = ?", arguments: [userId])
    }

    func deactivate(userId: Int64, at now: Date) throws {
        try db.execute(sql: "UPDATE users SET deactivated_at = ?, updated_at = ? WHERE id = ?", arguments: [now, now, userId])
    }

    func delete(userId: Int64) throws {
        try db.execute(sql: "DELETE FROM users WHERE id = ?", arguments: [userId])
    }

    func reactivate(userId: Int64, at now: Date) throws {
        try db.execute(sql: "UPDATE users SET deactivated_at = NULL, updated_at = ? WHERE id = ?", arguments: [now, userId])
    }

    func setAdministrator(_ admin: Bool, userId: Int64, at now: Date) throws {
        try db.execute(sql: "UPDATE users SET is_admin = ?, updated_at = ? WHERE id = ?", arguments: [admin, now, userId])
    }

    func otherActiveAdministrators(besides userId: Int64) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM users WHERE is_admin = 1 AND deactivated_at IS NULL AND id <> ?",
                         arguments: [userId]) ?? 0
    }

    func administratorEmails() throws -> [String] {
        try String.fetchAll(db, sql: "SELECT email FROM users WHERE is_admin = 1 AND deactivated_at IS NULL ORDER BY id")
    }
}

/// `EmailConfirmationStore` on SQLite.
struct SQLiteEmailConfirmationStore: EmailConfirmationStore {
    let db: Database

    func replace(userId: Int64, tokenHash: String, emailKey: String, at now: Date, expiresAt: Date) throws {
        try db.execute(sql: "DELETE FROM email_confirmations WHERE user_id = ?", arguments: [userId])
        try db.execute(sql: """
            INSERT INTO email_confirmations (token_hash, user_id, email_key, created_at, expires_at) VALUES (?, ?, ?, ?, ?)
            """, arguments: [tokenHash, userId, emailKey, now, expiresAt])
    }

    func queueMail(to recipient: String, message: String, at now: Date) throws {
        try MailOutbox.enqueue(db, kind: .emailConfirmation, recipient: recipient, workspaceId: nil, message: message, at: now)
    }

    func live(tokenHash: String, at now: Date) throws -> EmailConfirmationLink? {
        guard let row = try Row.fetchOne(db, sql: """
            SELECT id, user_id, email_key FROM email_confirmations WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?
            """, arguments: [tokenHash, now])
        else { return nil }
        return EmailConfirmationLink(id: row["id"], userId: row["user_id"], emailKey: row["email_key"])
    }

    func markUsed(id: Int64, at now: Date) throws {
        try db.execute(sql: "UPDATE email_confirmations SET used_at = ? WHERE id = ?", arguments: [now, id])
    }

    func removeAll(userId: Int64) throws {
        try db.execute(sql: "DELETE FROM email_confirmations WHERE user_id = ?", arguments: [userId])
    }
}

/// `StatusStore` on SQLite.
struct SQLiteStatusStore: StatusStore {
    let db: Database

    func set(userId: Int64, emoji: String, text: String, expiresAt: Date?, at now: Date) throws {
        try db.execute(sql: """
            INSERT INTO user_statuses (user_id, emoji, text, expires_at, updated_at) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (user_id) DO UPDATE SET emoji = excluded.emoji, text = excluded.text,
                expires_at = excluded.expires_at, updated_at = excluded.updated_at
            """, arguments: [userId, emoji, text, expiresAt.map(Timestamps.database), Timestamps.database(now)])
    }

    func clear(userId: Int64) throws {
        try db.execute(sql: "DELETE FROM user_statuses WHERE user_id = ?", arguments: [userId])
    }

    func current(of userIds: [Int64], at now: Date) throws -> [Int64: UserStatus] {
        guard !userIds.isEmpty else { return [:] }
        let rows = try Row.fetchAll(db, sql: """
            SELECT user_id, emoji, text, expires_at FROM user_statuses
            WHERE user_id IN (\(databaseQuestionMarks(count: userIds.count)))
            """, arguments: StatementArguments(userIds))
        var statuses: [Int64: UserStatus] = [:]
        for row in rows {
            let status = UserStatus(emoji: row["emoji"], text: row["text"], expiresAt: row["expires_at"])
            if status.expiresAt.map({ $0 > now }) ?? true { statuses[row["user_id"]] = status }
        }
        return statuses
    }

    func announcementRooms(userId: Int64) throws -> [Int64] {
        try Int64.fetchAll(db, sql: """
            SELECT rooms.id FROM rooms JOIN workspace_members ON workspace_members.workspace_id = rooms.workspace_id
            WHERE rooms.is_default = 1 AND workspace_members.user_id = ?
            """, arguments: [userId])
    }
}

extension StatusService {
    /// The statuses of `userIds` that have not expired at `now`, for code still holding a GRDB
    /// connection (`tx.statuses.current` otherwise).
    static func current(_ db: Database, of userIds: some Collection<Int64>, at now: Date) throws -> [Int64: UserStatus] {
        try SQLiteStatusStore(db: db).current(of: Array(userIds), at: now)
    }
}

/// `TwoStepStore` on SQLite: the secret and its state are columns of `users`, the codes rows of
/// `recovery_codes`.
struct SQLiteTwoStepStore: TwoStepStore {
    let db: Database

    func state(userId: Int64) throws -> TwoStepState? {
        guard let row = try Row.fetchOne(db, sql: "SELECT totp_secret, totp_enabled_at, totp_last_step FROM users WHERE id = ?",
                                         arguments: [userId])
        else { return nil }
        return TwoStepState(secret: row["totp_secret"], enabledAt: row["totp_enabled_at"], lastStep: row["totp_last_step"])
    }

    func setSecret(_ secret: String, userId: Int64) throws {
        try db.execute(sql: "UPDATE users SET totp_secret = ? WHERE id = ?", arguments: [secret, userId])
    }

    func enable(userId: Int64, step: Int64, at now: Date) throws {
        try db.execute(sql: "UPDATE users SET totp_enabled_at = ?, totp_last_step = ?, updated_at = ? WHERE id = ?",
                       arguments: [now, step, now, userId])
    }

    func acceptStep(_ step: Int64, userId: Int64) throws {
        try db.execute(sql: "UPDATE users SET totp_last_step = ? WHERE id = ?", arguments: [step, userId])
    }

    func disable(userId: Int64, at now: Date) throws {
        try db.execute(sql: "UPDATE users SET totp_secret = NULL, totp_enabled_at = NULL, totp_last_step = 0, updated_at = ? WHERE id = ?",
                       arguments: [now, userId])
        try db.execute(sql: "DELETE FROM recovery_codes WHERE user_id = ?", arguments: [userId])
    }

    func replaceRecoveryCodes(hashes: [String], userId: Int64) throws {
        try db.execute(sql: "DELETE FROM recovery_codes WHERE user_id = ?", arguments: [userId])
        for hash in hashes {
            try db.execute(sql: "INSERT INTO recovery_codes (user_id, code_hash) VALUES (?, ?)", arguments: [userId, hash])
        }
    }

    func useRecoveryCode(hash: String, userId: Int64, at now: Date) throws -> Bool {
        guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM recovery_codes WHERE user_id = ? AND code_hash = ? AND used_at IS NULL",
                                          arguments: [userId, hash]) else { return false }
        try db.execute(sql: "UPDATE recovery_codes SET used_at = ? WHERE id = ?", arguments: [now, id])
        return true
    }

    func recoveryCodesLeft(userId: Int64) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM recovery_codes WHERE user_id = ? AND used_at IS NULL", arguments: [userId]) ?? 0
    }
}
