import Foundation

/// People's accounts (`AccountService`, `AccountAdministration`, and the services that read
/// them: e-mail confirmation, operator commands).
protocol AccountStore {
    /// The account with this id, or nil.
    func user(id: Int64) throws -> User?
    /// The account whose address has this key (`User.key(forEmail:)`), or nil.
    func user(emailKey: String) throws -> User?
    /// The accounts with these ids (those that exist).
    func users(ids: [Int64]) throws -> [User]
    /// Marks the account's address confirmed at `now`.
    func confirmEmail(userId: Int64, at now: Date) throws

    /// How many accounts there are.
    func count() throws -> Int
    /// Whether an account has the address with this key (`User.key(forEmail:)`).
    func hasAccount(emailKey: String) throws -> Bool
    /// The account with the address of this key that has no password yet (made by an import),
    /// or nil.
    func passwordlessUser(emailKey: String) throws -> User?
    /// Accounts whose address key or lowercased nickname matches `pattern` (a `ContainsPattern`),
    /// active ones first, newest first, at most `limit`, with how many workspaces each is in.
    func accounts(matching pattern: String, limit: Int) throws -> [AccountAdministration.Account]
    /// Stores a new account; answers it with its id. Throws `DuplicateKey` when an account has
    /// its address already.
    func insert(_ user: User) throws -> User
    /// Saves every field of a stored account.
    func update(_ user: User) throws
    /// Notes that the person was seen at `now` (signed in, or used a session).
    func noteSeen(userId: Int64, at now: Date) throws
    /// Replaces the account's password hash, changed at `now`.
    func setPassword(hash: String, userId: Int64, at now: Date) throws
    /// Keeps the language the person picked.
    func setLanguage(_ lang: String, userId: Int64) throws
    /// Whether the person gets the digest of what they missed.
    func setMailDigest(_ on: Bool, userId: Int64) throws
    /// Whether the person gets the digest; nil when there is no such account.
    func mailDigest(userId: Int64) throws -> Bool?
    /// Deactivates the account at `now`.
    func deactivate(userId: Int64, at now: Date) throws
    /// Deletes the account for good: its sessions, memberships, follows and other rows of its
    /// own go with it; what it wrote and uploaded stays, without an author. Refused while it owns
    /// a workspace or a channel.
    func delete(userId: Int64) throws
    /// Lets a deactivated account sign in again (changed at `now`).
    func reactivate(userId: Int64, at now: Date) throws
    /// Makes the account a server administrator, or not (changed at `now`).
    func setAdministrator(_ admin: Bool, userId: Int64, at now: Date) throws
    /// How many active administrators there are besides `userId`.
    func otherActiveAdministrators(besides userId: Int64) throws -> Int
    /// The e-mail addresses of the active server administrators, oldest account first.
    func administratorEmails() throws -> [String]
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
    /// Removes every link of the account: none confirms anything any more.
    func removeAll(userId: Int64) throws
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
