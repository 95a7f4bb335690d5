import Foundation

/// People's accounts, as far as the services that do not own them need them (e-mail
/// confirmation, operator commands).
protocol AccountStore {
    /// The account with this id, or nil.
    func user(id: Int64) throws -> User?
    /// The account whose address has this key (`User.key(forEmail:)`), or nil.
    func user(emailKey: String) throws -> User?
    /// Marks the account's address confirmed at `now`.
    func confirmEmail(userId: Int64, at now: Date) throws
}

/// A live link that confirms an account's address: which account, and the address it was sent
/// to (it confirms nothing once the account's address changed).
struct EmailConfirmationLink: Sendable {
    let id: Int64
    let userId: Int64
    /// The key of the address the link was mailed to (`User.key(forEmail:)`).
    let emailKey: String
}

/// The one-time links that confirm an account's address (`EmailConfirmations`).
protocol EmailConfirmationStore {
    /// Replaces the account's links with a new one: the hash of its token, the key of the
    /// address it goes to, live until `expiresAt`.
    func replace(userId: Int64, tokenHash: String, emailKey: String, at now: Date, expiresAt: Date) throws
    /// Queues the mail carrying the link to `recipient` (`MailOutbox`, kind `email_confirmation`),
    /// sent once this transaction commits.
    func queueMail(to recipient: String, message: String, at now: Date) throws
    /// The unused link whose token hashes to `tokenHash`, if it has not expired at `now`.
    func live(tokenHash: String, at now: Date) throws -> EmailConfirmationLink?
    /// Marks the link used at `now`: it confirms nothing more.
    func markUsed(id: Int64, at now: Date) throws
}

/// People's custom statuses (`StatusService`): at most one per person.
protocol StatusStore {
    /// Sets the person's status in place of any other, until `expiresAt` (nil: until changed).
    func set(userId: Int64, emoji: String, text: String, expiresAt: Date?, at now: Date) throws
    /// Clears the person's status.
    func clear(userId: Int64) throws
    /// The statuses of `userIds` that have not expired at `now`; people without one are left out.
    func current(of userIds: [Int64], at now: Date) throws -> [Int64: UserStatus]
    /// The default room of every workspace the person is in: where a change of their status is
    /// announced.
    func announcementRooms(userId: Int64) throws -> [Int64]
}

/// An account's two-step sign-in as stored.
struct TwoStepState: Sendable {
    /// The secret (Base32): waiting to be confirmed while `enabledAt` is nil, else in use; nil
    /// when none was made.
    let secret: String?
    /// When two-step sign-in was turned on; nil while it is off.
    let enabledAt: Date?
    /// The last time step whose code was accepted: each step's code is taken once.
    let lastStep: Int64
}

/// Two-step sign-in (`TwoStepService`): each account's secret and its single-use recovery codes,
/// kept as hashes.
protocol TwoStepStore {
    /// The account's two-step state, or nil when there is no such account.
    func state(userId: Int64) throws -> TwoStepState?
    /// Keeps `secret` (Base32) as the account's secret waiting to be confirmed.
    func setSecret(_ secret: String, userId: Int64) throws
    /// Turns two-step sign-in on at `now`, with `step` as the last accepted step.
    func enable(userId: Int64, step: Int64, at now: Date) throws
    /// Notes `step` as the last accepted step: its code, and earlier ones, are taken no more.
    func acceptStep(_ step: Int64, userId: Int64) throws
    /// Turns two-step sign-in off at `now`: the secret and every recovery code go.
    func disable(userId: Int64, at now: Date) throws
    /// Replaces the account's recovery codes with these (hashes of the codes as stored).
    func replaceRecoveryCodes(hashes: [String], userId: Int64) throws
    /// Uses up the unused recovery code with this hash at `now`; answers whether there was one.
    func useRecoveryCode(hash: String, userId: Int64, at now: Date) throws -> Bool
    /// How many of the account's recovery codes are not used yet.
    func recoveryCodesLeft(userId: Int64) throws -> Int
}
