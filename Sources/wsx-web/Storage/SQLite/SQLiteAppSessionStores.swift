import Foundation
import GRDB

/// `AppSessionStore` on SQLite: the rows of `app_sessions`.
struct SQLiteAppSessionStore: AppSessionStore {
    let db: Database

    func insert(_ session: AppSession) throws -> AppSession {
        try session.inserted(db)
    }

    func session(accessHash: String) throws -> AppSession? {
        try AppSession.fetchOne(db.cachedStatement(sql: "SELECT * FROM app_sessions WHERE access_hash = ?"), arguments: [accessHash])
    }

    func session(refreshHash: String) throws -> AppSession? {
        try AppSession.fetchOne(db, sql: "SELECT * FROM app_sessions WHERE refresh_hash = ?", arguments: [refreshHash])
    }

    func renew(id: Int64, accessHash: String, accessExpiresAt: Date, refreshExpiresAt: Date, at usedAt: Date) throws {
        try db.execute(sql: """
            UPDATE app_sessions SET access_hash = ?, access_expires_at = ?, refresh_expires_at = ?, used_at = ? WHERE id = ?
            """, arguments: [accessHash, accessExpiresAt, refreshExpiresAt, usedAt, id])
    }

    func delete(id: Int64, userId: Int64) throws -> Bool {
        try db.execute(sql: "DELETE FROM app_sessions WHERE id = ? AND user_id = ?", arguments: [id, userId])
        return db.changesCount > 0
    }

    func deleteAll(userId: Int64) throws -> Int {
        try db.execute(sql: "DELETE FROM app_sessions WHERE user_id = ?", arguments: [userId])
        return db.changesCount
    }

    func sessions(userId: Int64) throws -> [AppSession] {
        try AppSession.fetchAll(db, sql: "SELECT * FROM app_sessions WHERE user_id = ? ORDER BY created_at DESC, id DESC",
                                arguments: [userId])
    }

    func deleteExpired(at now: Date) throws -> Int {
        try db.execute(sql: "DELETE FROM app_sessions WHERE refresh_expires_at <= ?", arguments: [now])
        return db.changesCount
    }
}

/// `PublicIdStore` on SQLite: the `public_id` columns.
struct SQLitePublicIdStore: PublicIdStore {
    let db: Database

    func id(of publicId: String, in table: PublicTable) throws -> Int64? {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT id FROM \(table.rawValue) WHERE public_id = ?"), arguments: [publicId])
    }

    func publicIds(of ids: [Int64], in table: PublicTable) throws -> [Int64: String] {
        guard !ids.isEmpty else { return [:] }
        let marks = Array(repeating: "?", count: ids.count).joined(separator: ", ")
        let rows = try Row.fetchAll(db, sql: "SELECT id, public_id FROM \(table.rawValue) WHERE id IN (\(marks))",
                                    arguments: StatementArguments(ids))
        return Dictionary(rows.map { ($0["id"], $0["public_id"]) }, uniquingKeysWith: { first, _ in first })
    }
}

/// `SocialLoginStore` on SQLite: the rows of `social_logins`.
struct SQLiteSocialLoginStore: SocialLoginStore {
    let db: Database

    func userId(provider: String, subject: String) throws -> Int64? {
        try Int64.fetchOne(db, sql: "SELECT user_id FROM social_logins WHERE provider = ? AND subject = ?", arguments: [provider, subject])
    }

    func link(provider: String, subject: String, userId: Int64, at now: Date) throws {
        try db.execute(sql: "INSERT INTO social_logins (provider, subject, user_id, created_at) VALUES (?, ?, ?, ?)",
                       arguments: [provider, subject, userId, Timestamps.database(now)])
    }

    func providers(userIds: [Int64]) throws -> [Int64: String] {
        guard !userIds.isEmpty else { return [:] }
        let rows = try Row.fetchAll(db, sql: """
            SELECT user_id, provider FROM social_logins WHERE user_id IN (\(databaseQuestionMarks(count: userIds.count)))
            """, arguments: StatementArguments(userIds))
        return Dictionary(rows.map { ($0["user_id"], $0["provider"]) }, uniquingKeysWith: { first, _ in first })
    }
}

/// `AppPasswordStore` on SQLite: the rows of `app_passwords`.
struct SQLiteAppPasswordStore: AppPasswordStore {
    let db: Database

    private static let select = "SELECT id, user_id, name, created_at, last_used_at FROM app_passwords"

    func insert(userId: Int64, name: String, passwordHash: String, at now: Date) throws -> AppPassword {
        try db.execute(sql: "INSERT INTO app_passwords (user_id, name, password_hash, created_at) VALUES (?, ?, ?, ?)",
                       arguments: [userId, name, passwordHash, Timestamps.database(now)])
        return AppPassword(id: db.lastInsertedRowID, userId: userId, name: name, createdAt: now, lastUsedAt: nil)
    }

    func password(userId: Int64, passwordHash: String) throws -> AppPassword? {
        try Row.fetchOne(db, sql: "\(Self.select) WHERE user_id = ? AND password_hash = ?", arguments: [userId, passwordHash])
            .map(Self.password)
    }

    func passwords(userId: Int64) throws -> [AppPassword] {
        try Row.fetchAll(db, sql: "\(Self.select) WHERE user_id = ? ORDER BY id DESC", arguments: [userId]).map(Self.password)
    }

    func touch(id: Int64, at now: Date) throws {
        try db.execute(sql: "UPDATE app_passwords SET last_used_at = ? WHERE id = ?", arguments: [Timestamps.database(now), id])
    }

    func delete(id: Int64, userId: Int64) throws -> Bool {
        try db.execute(sql: "DELETE FROM app_passwords WHERE id = ? AND user_id = ?", arguments: [id, userId])
        return db.changesCount > 0
    }

    private static func password(_ row: Row) -> AppPassword {
        AppPassword(id: row[0], userId: row[1], name: row[2], createdAt: row[3], lastUsedAt: row[4])
    }
}
