import Foundation
import PostgresNIO

/// `SessionRecordStore` on PostgreSQL: the rows of `sessions`, and the account each belongs to.
struct PostgresSessionRecordStore: SessionRecordStore {
    let session: PostgresSession

    private static let columns = "id, token_hash, user_id, csrf_token, user_agent, created_at, refreshed_at, expires_at"

    func session(tokenHash: String) throws -> Session? {
        try session.run("SELECT \(unescaped: Self.columns) FROM sessions WHERE token_hash = \(tokenHash)").first.map(Self.session)
    }

    func user(id: Int64) throws -> User? {
        try session.run("SELECT \(unescaped: User.postgresColumns) FROM users WHERE id = \(id)").first.map(User.init(postgres:))
    }

    func insert(_ record: Session) throws -> Session {
        let rows = try session.run("""
            INSERT INTO sessions (token_hash, user_id, csrf_token, user_agent, created_at, refreshed_at, expires_at)
            VALUES (\(record.tokenHash), \(record.userId), \(record.csrfToken), \(record.userAgent), \(record.createdAt),
                    \(record.refreshedAt), \(record.expiresAt))
            RETURNING id
            """)
        var inserted = record
        inserted.id = try rows.first?.decode(Int64.self)
        return inserted
    }

    func refresh(id: Int64, refreshedAt: Date, expiresAt: Date) throws {
        try session.run("UPDATE sessions SET refreshed_at = \(refreshedAt), expires_at = \(expiresAt) WHERE id = \(id)")
    }

    func delete(id: Int64) throws -> Bool {
        try !session.run("DELETE FROM sessions WHERE id = \(id) RETURNING id").isEmpty
    }

    func deleteAll(userId: Int64) throws -> [Int64] {
        try session.run("DELETE FROM sessions WHERE user_id = \(userId) RETURNING id").map { try $0.decode(Int64.self) }.sorted()
    }

    func deleteExpired(at now: Date, startedBefore: Date) throws -> Int {
        try session.run("DELETE FROM sessions WHERE expires_at <= \(now) OR created_at <= \(startedBefore) RETURNING id").count
    }

    private static func session(_ row: PostgresRow) throws -> Session {
        let (id, tokenHash, userId, csrfToken, userAgent, createdAt, refreshedAt, expiresAt) =
            try row.decode((Int64, String, Int64, String, String?, Date, Date, Date).self)
        return Session(id: id, tokenHash: tokenHash, userId: userId, csrfToken: csrfToken, userAgent: userAgent,
                       createdAt: createdAt, refreshedAt: refreshedAt, expiresAt: expiresAt)
    }
}

/// `PasswordResetStore` on PostgreSQL: the rows of `password_resets`.
struct PostgresPasswordResetStore: PasswordResetStore {
    let session: PostgresSession

    private static let columns = "id, token_hash, user_id, created_at, expires_at, used_at"

    func insert(_ reset: PasswordReset) throws {
        try session.run("""
            INSERT INTO password_resets (token_hash, user_id, created_at, expires_at, used_at)
            VALUES (\(reset.tokenHash), \(reset.userId), \(reset.createdAt), \(reset.expiresAt), \(reset.usedAt))
            """)
    }

    func reset(tokenHash: String) throws -> PasswordReset? {
        try session.run("SELECT \(unescaped: Self.columns) FROM password_resets WHERE token_hash = \(tokenHash)").first.map(Self.reset)
    }

    func live(tokenHash: String, at now: Date) throws -> PasswordReset? {
        try session.run("""
            SELECT \(unescaped: Self.columns) FROM password_resets
            WHERE token_hash = \(tokenHash) AND used_at IS NULL AND expires_at > \(now)
            """).first.map(Self.reset)
    }

    func markUsed(id: Int64, at now: Date) throws {
        try session.run("UPDATE password_resets SET used_at = \(now) WHERE id = \(id)")
    }

    func removeAll(userId: Int64) throws {
        try session.run("DELETE FROM password_resets WHERE user_id = \(userId)")
    }

    func deleteSpent(at now: Date) throws {
        try session.run("DELETE FROM password_resets WHERE expires_at <= \(now) OR used_at IS NOT NULL")
    }

    private static func reset(_ row: PostgresRow) throws -> PasswordReset {
        let (id, tokenHash, userId, createdAt, expiresAt, usedAt) = try row.decode((Int64, String, Int64, Date, Date, Date?).self)
        return PasswordReset(id: id, tokenHash: tokenHash, userId: userId, createdAt: createdAt, expiresAt: expiresAt, usedAt: usedAt)
    }
}

extension User {
    /// The columns `init(postgres:)` reads.
    static let postgresColumns = """
        id, email, email_key, nickname, phone, password_hash, lang, coin_balance, avatar_file_id, notify_default, created_at,
        updated_at, is_admin, deactivated_at, email_confirmed_at, totp_enabled_at
        """

    /// An account from a row of `postgresColumns`.
    init(postgres row: PostgresRow) throws {
        let cells = row.makeRandomAccess()
        self.init(id: try cells["id"].decode(Int64.self), email: try cells["email"].decode(String.self),
                  emailKey: try cells["email_key"].decode(String.self), nickname: try cells["nickname"].decode(String.self),
                  phone: try cells["phone"].decode(String?.self), passwordHash: try cells["password_hash"].decode(String.self),
                  lang: try cells["lang"].decode(String?.self), coinBalance: try cells["coin_balance"].decode(Int.self),
                  avatarFileId: try cells["avatar_file_id"].decode(Int64?.self), createdAt: try cells["created_at"].decode(Date.self),
                  updatedAt: try cells["updated_at"].decode(Date.self))
        notifyDefault = try cells["notify_default"].decode(String.self)
        isAdmin = try cells["is_admin"].decode(Bool.self)
        deactivatedAt = try cells["deactivated_at"].decode(Date?.self)
        emailConfirmedAt = try cells["email_confirmed_at"].decode(Date?.self)
        twoStepEnabledAt = try cells["totp_enabled_at"].decode(Date?.self)
    }
}
