import Foundation
import GRDB

/// A row of `users`.
struct User: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "users"

    var id: Int64?
    var email: String
    var emailKey: String
    var nickname: String
    var phone: String?
    var passwordHash: String
    var lang: String?
    /// Coins to spend; changed only through `CoinLedger`, which records every change.
    var coinBalance: Int = 0
    /// The profile photo (a row of `files`).
    var avatarFileId: Int64?
    var createdAt: Date
    var updatedAt: Date

    enum CodingKeys: String, CodingKey, ColumnExpression {
        case id, email, emailKey = "email_key", nickname, phone, passwordHash = "password_hash", lang
        case coinBalance = "coin_balance", avatarFileId = "avatar_file_id", createdAt = "created_at", updatedAt = "updated_at"
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    /// The key that makes emails unique regardless of case.
    static func key(forEmail email: String) -> String { email.lowercased() }
}

/// A row of `sessions`: one signed-in browser.
struct Session: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "sessions"

    var id: Int64?
    var tokenHash: String
    var userId: Int64
    var csrfToken: String
    var userAgent: String?
    var createdAt: Date
    var refreshedAt: Date
    var expiresAt: Date

    enum CodingKeys: String, CodingKey, ColumnExpression {
        case id, tokenHash = "token_hash", userId = "user_id", csrfToken = "csrf_token", userAgent = "user_agent"
        case createdAt = "created_at", refreshedAt = "refreshed_at", expiresAt = "expires_at"
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

/// A row of `password_resets`: a one-time link an operator handed out.
struct PasswordReset: Codable, Sendable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "password_resets"

    var id: Int64?
    var tokenHash: String
    var userId: Int64
    var createdAt: Date
    var expiresAt: Date
    var usedAt: Date?

    enum CodingKeys: String, CodingKey, ColumnExpression {
        case id, tokenHash = "token_hash", userId = "user_id", createdAt = "created_at", expiresAt = "expires_at"
        case usedAt = "used_at"
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}
