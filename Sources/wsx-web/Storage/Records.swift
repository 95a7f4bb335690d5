import Foundation
import Views

/// A row of `users`.
struct User: Codable, Sendable, Equatable {

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
    /// How rooms they did not set notify them (a `NotifyLevel`).
    var notifyDefault: String = NotifyLevel.standard.rawValue
    var createdAt: Date
    var updatedAt: Date
    /// A server administrator (`/admin`).
    var isAdmin = false
    /// Deactivated by an administrator: no sign-in, no sessions; what they wrote stays.
    var deactivatedAt: Date?
    /// When the address was confirmed by mail (or the account was made before confirmation existed).
    var emailConfirmedAt: Date?
    /// Two-step sign-in is on (`totp_enabled_at`).
    var twoStepEnabledAt: Date?

    var isActive: Bool { deactivatedAt == nil }

    enum CodingKeys: String, CodingKey {
        case id, email, emailKey = "email_key", nickname, phone, passwordHash = "password_hash", lang
        case coinBalance = "coin_balance", avatarFileId = "avatar_file_id", notifyDefault = "notify_default"
        case createdAt = "created_at", updatedAt = "updated_at"
        case isAdmin = "is_admin", deactivatedAt = "deactivated_at", emailConfirmedAt = "email_confirmed_at"
        case twoStepEnabledAt = "totp_enabled_at"
    }


    init(id: Int64? = nil, email: String, emailKey: String, nickname: String, phone: String?, passwordHash: String,
         lang: String?, coinBalance: Int = 0, avatarFileId: Int64? = nil, createdAt: Date, updatedAt: Date) {
        (self.id, self.email, self.emailKey, self.nickname, self.phone) = (id, email, emailKey, nickname, phone)
        (self.passwordHash, self.lang, self.coinBalance, self.avatarFileId) = (passwordHash, lang, coinBalance, avatarFileId)
        (self.createdAt, self.updatedAt) = (createdAt, updatedAt)
    }

    /// The key that makes emails unique regardless of case.
    static func key(forEmail email: String) -> String { email.lowercased() }
}

/// A row of `sessions`: one signed-in browser.
struct Session: Codable, Sendable, Equatable {

    var id: Int64?
    var tokenHash: String
    var userId: Int64
    var csrfToken: String
    var userAgent: String?
    var createdAt: Date
    var refreshedAt: Date
    var expiresAt: Date

    enum CodingKeys: String, CodingKey {
        case id, tokenHash = "token_hash", userId = "user_id", csrfToken = "csrf_token", userAgent = "user_agent"
        case createdAt = "created_at", refreshedAt = "refreshed_at", expiresAt = "expires_at"
    }


    init(id: Int64?, tokenHash: String, userId: Int64, csrfToken: String, userAgent: String?, createdAt: Date,
         refreshedAt: Date, expiresAt: Date) {
        (self.id, self.tokenHash, self.userId, self.csrfToken, self.userAgent) = (id, tokenHash, userId, csrfToken, userAgent)
        (self.createdAt, self.refreshedAt, self.expiresAt) = (createdAt, refreshedAt, expiresAt)
    }
}

/// A row of `password_resets`: a one-time link an operator handed out.
struct PasswordReset: Codable, Sendable {

    var id: Int64?
    var tokenHash: String
    var userId: Int64
    var createdAt: Date
    var expiresAt: Date
    var usedAt: Date?

    enum CodingKeys: String, CodingKey {
        case id, tokenHash = "token_hash", userId = "user_id", createdAt = "created_at", expiresAt = "expires_at"
        case usedAt = "used_at"
    }
}

/// A row of `app_sessions`: one app's sign-in (`/v1`), by the hashes of its tokens.
struct AppSession: Codable, Sendable, Equatable {
    var id: Int64?
    var userId: Int64
    var accessHash: String
    var refreshHash: String
    var accessExpiresAt: Date
    var refreshExpiresAt: Date
    /// The push token the app sent with its sign-in (`deviceToken`), if any.
    var deviceToken: String?
    /// What the app said it is (`User-Agent`), shown on the person's settings page.
    var client: String?
    var createdAt: Date
    var usedAt: Date
    /// The app password it signed in with (two-step accounts): revoking that ends it.
    var appPasswordId: Int64?

    enum CodingKeys: String, CodingKey {
        case id, userId = "user_id", accessHash = "access_hash", refreshHash = "refresh_hash"
        case accessExpiresAt = "access_expires_at", refreshExpiresAt = "refresh_expires_at", deviceToken = "device_token"
        case client, createdAt = "created_at", usedAt = "used_at", appPasswordId = "app_password_id"
    }
}

/// A row of `app_passwords`: one device's password for the apps, by its hash.
struct AppPassword: Sendable, Equatable {
    var id: Int64
    var userId: Int64
    var name: String
    var createdAt: Date
    var lastUsedAt: Date?
}
