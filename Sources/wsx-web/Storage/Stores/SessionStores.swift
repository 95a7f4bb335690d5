import Foundation

/// Signed-in browsers' sessions (`SessionStore`): only the hash of each cookie token is kept.
protocol SessionRecordStore {
    /// The session whose cookie token hashes to `tokenHash`, live or not. Every request asks it.
    func session(tokenHash: String) throws -> Session?
    /// The account a session belongs to, by id. Every request asks it, next to `session`.
    func user(id: Int64) throws -> User?
    /// Stores a new session; answers it with its id.
    func insert(_ session: Session) throws -> Session
    /// Moves the session's sliding expiry: refreshed at `refreshedAt`, live until `expiresAt`.
    func refresh(id: Int64, refreshedAt: Date, expiresAt: Date) throws
    /// Ends the session; answers whether there was one.
    func delete(id: Int64) throws -> Bool
    /// Ends every session of the account; answers the ids of those it ended.
    func deleteAll(userId: Int64) throws -> [Int64]
    /// Removes the sessions expired at `now`, and those begun at or before `startedBefore`
    /// (past their maximum age); answers how many.
    func deleteExpired(at now: Date, startedBefore: Date) throws -> Int
}

/// The one-time password reset links an operator hands out (`AccountService`): only the hash
/// of each token is kept.
protocol PasswordResetStore {
    /// Stores a new link.
    func insert(_ reset: PasswordReset) throws
    /// The link whose token hashes to `tokenHash`, whatever its state.
    func reset(tokenHash: String) throws -> PasswordReset?
    /// The link whose token hashes to `tokenHash` if it is unused and has not expired at `now`.
    func live(tokenHash: String, at now: Date) throws -> PasswordReset?
    /// Marks the link used at `now`: it works no more.
    func markUsed(id: Int64, at now: Date) throws
    /// Removes every link of the account.
    func removeAll(userId: Int64) throws
    /// Removes the links used, or expired at `now`.
    func deleteSpent(at now: Date) throws
}
