import Foundation
import PostgresNIO

/// `AppSessionStore` on PostgreSQL: the rows of `app_sessions`.
struct PostgresAppSessionStore: AppSessionStore {
    let session: PostgresSession

    private static let columns = """
        id, user_id, access_hash, refresh_hash, access_expires_at, refresh_expires_at, device_token, client, created_at, used_at,
        app_password_id
        """

    func insert(_ record: AppSession) throws -> AppSession {
        let rows = try session.run("""
            INSERT INTO app_sessions (user_id, access_hash, refresh_hash, access_expires_at, refresh_expires_at, device_token,
                                      client, created_at, used_at, app_password_id)
            VALUES (\(record.userId), \(record.accessHash), \(record.refreshHash), \(record.accessExpiresAt),
                    \(record.refreshExpiresAt), \(record.deviceToken), \(record.client), \(record.createdAt), \(record.usedAt),
                    \(record.appPasswordId))
            RETURNING id
            """)
        var inserted = record
        inserted.id = try rows.first?.decode(Int64.self)
        return inserted
    }

    func session(accessHash: String) throws -> AppSession? {
        try session.run("SELECT \(unescaped: Self.columns) FROM app_sessions WHERE access_hash = \(accessHash)").first.map(Self.record)
    }

    func session(refreshHash: String) throws -> AppSession? {
        try session.run("SELECT \(unescaped: Self.columns) FROM app_sessions WHERE refresh_hash = \(refreshHash)").first.map(Self.record)
    }

    func renew(id: Int64, accessHash: String, accessExpiresAt: Date, refreshExpiresAt: Date, at usedAt: Date) throws {
        try session.run("""
            UPDATE app_sessions SET access_hash = \(accessHash), access_expires_at = \(accessExpiresAt),
                refresh_expires_at = \(refreshExpiresAt), used_at = \(usedAt)
            WHERE id = \(id)
            """)
    }

    func delete(id: Int64, userId: Int64) throws -> Bool {
        try !session.run("DELETE FROM app_sessions WHERE id = \(id) AND user_id = \(userId) RETURNING id").isEmpty
    }

    func deleteAll(userId: Int64) throws -> Int {
        try session.run("DELETE FROM app_sessions WHERE user_id = \(userId) RETURNING id").count
    }

    func sessions(userId: Int64) throws -> [AppSession] {
        try session.run("""
            SELECT \(unescaped: Self.columns) FROM app_sessions WHERE user_id = \(userId) ORDER BY created_at DESC, id DESC
            """).map(Self.record)
    }

    func deleteExpired(at now: Date) throws -> Int {
        try session.run("DELETE FROM app_sessions WHERE refresh_expires_at <= \(now) RETURNING id").count
    }

    private static func record(_ row: PostgresRow) throws -> AppSession {
        let (id, userId, accessHash, refreshHash, accessExpiresAt, refreshExpiresAt, deviceToken, client, createdAt, usedAt, appPassword) =
            try row.decode((Int64, Int64, String, String, Date, Date, String?, String?, Date, Date, Int64?).self)
        return AppSession(id: id, userId: userId, accessHash: accessHash, refreshHash: refreshHash, accessExpiresAt: accessExpiresAt,
                          refreshExpiresAt: refreshExpiresAt, deviceToken: deviceToken, client: client, createdAt: createdAt,
                          usedAt: usedAt, appPasswordId: appPassword)
    }
}

/// `PublicIdStore` on PostgreSQL: the `public_id` columns.
struct PostgresPublicIdStore: PublicIdStore {
    let session: PostgresSession

    func id(of publicId: String, in table: PublicTable) throws -> Int64? {
        try session.run(numbered: "SELECT id FROM \(table.rawValue) WHERE public_id = $1", binding: publicId)
            .first?.decode(Int64.self)
    }

    func publicIds(of ids: [Int64], in table: PublicTable) throws -> [Int64: String] {
        guard !ids.isEmpty else { return [:] }
        let rows = try session.run(numbered: "SELECT id, public_id FROM \(table.rawValue) WHERE id = ANY($1)", binding: ids)
        return try Dictionary(rows.map { try $0.decode((Int64, String).self) }, uniquingKeysWith: { first, _ in first })
    }
}

/// `SocialLoginStore` on PostgreSQL: the rows of `social_logins`.
struct PostgresSocialLoginStore: SocialLoginStore {
    let session: PostgresSession

    func userId(provider: String, subject: String) throws -> Int64? {
        try session.run("SELECT user_id FROM social_logins WHERE provider = \(provider) AND subject = \(subject)").first?.decode(Int64.self)
    }

    func link(provider: String, subject: String, userId: Int64, at now: Date) throws {
        try DuplicateKey.mappedOnPostgres {
            try session.run("""
                INSERT INTO social_logins (provider, subject, user_id, created_at) VALUES (\(provider), \(subject), \(userId), \(now))
                """)
        }
    }

    func providers(userIds: [Int64]) throws -> [Int64: String] {
        guard !userIds.isEmpty else { return [:] }
        let rows = try session.run("SELECT user_id, provider FROM social_logins WHERE user_id = ANY(\(userIds))")
        return try Dictionary(rows.map { try $0.decode((Int64, String).self) }, uniquingKeysWith: { first, _ in first })
    }
}

/// `AppPasswordStore` on PostgreSQL: the rows of `app_passwords`.
struct PostgresAppPasswordStore: AppPasswordStore {
    let session: PostgresSession

    func insert(userId: Int64, name: String, passwordHash: String, at now: Date) throws -> AppPassword {
        let id = try session.run("""
            INSERT INTO app_passwords (user_id, name, password_hash, created_at) VALUES (\(userId), \(name), \(passwordHash), \(now))
            RETURNING id
            """).first!.decode(Int64.self)
        return AppPassword(id: id, userId: userId, name: name, createdAt: now, lastUsedAt: nil)
    }

    func password(userId: Int64, passwordHash: String) throws -> AppPassword? {
        try session.run("""
            SELECT id, user_id, name, created_at, last_used_at FROM app_passwords WHERE user_id = \(userId) AND password_hash = \(passwordHash)
            """).first.map(Self.password)
    }

    func passwords(userId: Int64) throws -> [AppPassword] {
        try session.run("""
            SELECT id, user_id, name, created_at, last_used_at FROM app_passwords WHERE user_id = \(userId) ORDER BY id DESC
            """).map(Self.password)
    }

    func touch(id: Int64, at now: Date) throws {
        try session.run("UPDATE app_passwords SET last_used_at = \(now) WHERE id = \(id)")
    }

    func delete(id: Int64, userId: Int64) throws -> Bool {
        try !session.run("DELETE FROM app_passwords WHERE id = \(id) AND user_id = \(userId) RETURNING id").isEmpty
    }

    private static func password(_ row: PostgresRow) throws -> AppPassword {
        let (id, userId, name, createdAt, lastUsedAt) = try row.decode((Int64, Int64, String, Date, Date?).self)
        return AppPassword(id: id, userId: userId, name: name, createdAt: createdAt, lastUsedAt: lastUsedAt)
    }
}
