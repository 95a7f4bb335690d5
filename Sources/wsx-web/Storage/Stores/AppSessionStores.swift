import Foundation

/// The apps' sign-ins (`/v1`, `AppSessions`): one row per signed-in device, holding the hashes
/// of its access and refresh tokens, never the tokens.
protocol AppSessionStore {
    /// Stores a new sign-in; answers it with its id.
    func insert(_ session: AppSession) throws -> AppSession
    /// The sign-in whose access token hashes to `accessHash`, expired or not.
    func session(accessHash: String) throws -> AppSession?
    /// The sign-in whose refresh token hashes to `refreshHash`, expired or not.
    func session(refreshHash: String) throws -> AppSession?
    /// Gives the sign-in a new access token (its hash), live until `accessExpiresAt`, and moves
    /// its refresh token's expiry to `refreshExpiresAt`; `usedAt` is when.
    func renew(id: Int64, accessHash: String, accessExpiresAt: Date, refreshExpiresAt: Date, at usedAt: Date) throws
    /// Ends one sign-in of `userId`; answers whether there was one.
    func delete(id: Int64, userId: Int64) throws -> Bool
    /// Ends every sign-in of `userId` (deactivation, a new password); answers how many.
    @discardableResult
    func deleteAll(userId: Int64) throws -> Int
    /// `userId`'s sign-ins, newest first (for their settings page).
    func sessions(userId: Int64) throws -> [AppSession]
    /// Removes the sign-ins whose refresh token expired by `now`; answers how many.
    func deleteExpired(at now: Date) throws -> Int
}

/// The tables whose rows have an opaque id for `/v1` (`public_id`: never the sequential ids of
/// the web's URLs, unchanged by restarts, backups and copies).
enum PublicTable: String, Sendable, CaseIterable {
    case users, workspaces, rooms, messages, files
}

/// Opaque ids of rows, both ways.
protocol PublicIdStore {
    /// The row of `table` whose opaque id is `publicId`.
    func id(of publicId: String, in table: PublicTable) throws -> Int64?
    /// The opaque ids of `ids` in `table` (those that exist).
    func publicIds(of ids: [Int64], in table: PublicTable) throws -> [Int64: String]
}

/// Accounts the apps sign in to with Kakao or Apple (`SocialSignIns`).
protocol SocialLoginStore {
    /// The account `provider`'s person `subject` signs in to.
    func userId(provider: String, subject: String) throws -> Int64?
    /// Links `provider`'s person `subject` to the account.
    func link(provider: String, subject: String, userId: Int64, at now: Date) throws
    /// The provider each of these accounts signs in with (those that have one).
    func providers(userIds: [Int64]) throws -> [Int64: String]
}

/// Accounts' app passwords (`AppPasswords`): only their SHA-256 is kept.
protocol AppPasswordStore {
    func insert(userId: Int64, name: String, passwordHash: String, at now: Date) throws -> AppPassword
    /// The account's app password whose hash is `passwordHash`.
    func password(userId: Int64, passwordHash: String) throws -> AppPassword?
    /// The account's app passwords, newest first.
    func passwords(userId: Int64) throws -> [AppPassword]
    func touch(id: Int64, at now: Date) throws
    /// Revokes one (the apps' sign-ins made with it end too); answers whether there was one.
    func delete(id: Int64, userId: Int64) throws -> Bool
}
