import Foundation

/// What a person types to sign up, already cleaned (NFC, trimmed).
struct SignupInput: Sendable {
    var email: String
    var nickname: String
    var phone: String
    var password: String
    var passwordConfirm: String
    /// The UI language the visitor picked before signing up, kept on the new account.
    var lang: String?

    /// Reads the sign-up form's fields (`email nickname phone password password_confirm`).
    init(form: FormData) {
        email = (form["email"] ?? "").cleanedLine
        nickname = (form["nickname"] ?? "").cleanedLine
        phone = (form["phone"] ?? "").cleanedLine
        password = (form["password"] ?? "").nfc
        passwordConfirm = (form["password_confirm"] ?? "").nfc
    }
}

/// Accounts: sign-up, sign-in checks, profile and password changes, operator password resets.
///
/// Every method validates its input with `AccountRules` and throws `FormProblems` (keys of
/// messages per field) when it is refused, before anything is written.
struct AccountService: Sendable {
    let database: AppDatabase
    let hasher: PasswordHasher
    let clock: WallClock
    /// Coins every new account starts with.
    var signupCoins = 0

    /// How long an operator's reset link works.
    static let resetLinkLifetime: TimeInterval = 60 * 60

    /// Creates an account. Duplicate emails (in any letter case) are refused, also when two
    /// sign-ups race: the unique index decides. The first account of a server is its
    /// administrator. `confirmed`: the address needs no confirmation (an operator made it).
    func signUp(_ input: SignupInput, confirmed: Bool = false, address: String = "") async throws -> User {
        var problems = FormProblems()
        AccountRules.checkEmail(input.email, into: &problems)
        AccountRules.checkNickname(input.nickname, into: &problems)
        AccountRules.checkPhone(input.phone, into: &problems)
        AccountRules.checkNewPassword(input.password, confirmation: input.passwordConfirm, into: &problems)
        if problems.messages[.email] == nil, try await isEmailTaken(input.email) {
            problems.add(.email, "error_email_taken")
        }
        try problems.throwIfAny()

        let hash = try await hasher.hash(input.password)
        let now = clock.now()
        var newUser = User(id: nil, email: input.email, emailKey: User.key(forEmail: input.email), nickname: input.nickname,
                           phone: input.phone.isEmpty ? nil : input.phone, passwordHash: hash, lang: input.lang,
                           createdAt: now, updatedAt: now)
        newUser.emailConfirmedAt = confirmed ? now : nil
        let pending = newUser, coins = signupCoins, ledger = CoinLedger(outbox: database.outbox)
        do {
            return try await database.write { tx in
                var made = pending
                // The single writer orders sign-ups: exactly one is the first.
                made.isAdmin = try tx.accounts.count() == 0
                var user = try tx.accounts.insert(made)
                try tx.securityLog.record(.signUp, target: user.id, address: address, email: user.email,
                                          detail: user.isAdmin ? "administrator" : "", at: now)
                if coins > 0 {
                    user.coinBalance = try ledger.change(tx, userId: user.id!, by: coins, reason: "signup", at: now)
                }
                return user
            }
        } catch is DuplicateKey {
            throw FormProblems([.email: "error_email_taken"])
        }
    }

    /// Whether the server has any account yet (the first one is made by whoever comes first).
    func hasAccounts() throws -> Bool {
        try database.query { tx in try tx.accounts.count() > 0 }
    }

    func isEmailTaken(_ email: String) async throws -> Bool {
        try await database.queryOffLoop { tx in try tx.accounts.hasAccount(emailKey: User.key(forEmail: email)) }
    }

    /// The account with this email and password, or nil. Unknown emails cost as much time as
    /// wrong passwords, so timing does not reveal who has an account.
    func authenticate(email: String, password: String) async throws -> User? {
        let key = User.key(forEmail: email.cleanedLine)
        return try await authenticate(try await database.queryOffLoop { tx in try tx.accounts.user(emailKey: key) }, password: password)
    }

    /// `user` (as read for its address; nil: no account) if `password` is its password, else nil,
    /// in as much time either way.
    func authenticate(_ user: User?, password: String) async throws -> User? {
        // An account made without a password (by an import) is not signed in to until its
        // person chooses one through their invitation or a reset link.
        guard let user, !user.passwordHash.isEmpty else {
            try await hasher.verifyAgainstNothing(password.nfc)
            return nil
        }
        return try await hasher.verify(password.nfc, against: user.passwordHash) ? user : nil
    }

    func user(id: Int64) async throws -> User? {
        try await database.queryOffLoop { tx in try tx.accounts.user(id: id) }
    }

    func user(email: String) async throws -> User? {
        let key = User.key(forEmail: email.cleanedLine)
        return try await database.queryOffLoop { tx in try tx.accounts.user(emailKey: key) }
    }

    /// Whether `password` is the account's (for changes that ask for it again).
    func checkPassword(userId: Int64, _ password: String) async throws -> Bool {
        guard let user = try await user(id: userId), !user.passwordHash.isEmpty else { return false }
        return try await hasher.verify(password.nfc, against: user.passwordHash, lane: .other)
    }

    /// Changes nickname and phone.
    func updateProfile(userId: Int64, nickname rawNickname: String, phone rawPhone: String,
                       picture: PreparedFile? = nil) async throws -> User {
        let nickname = rawNickname.cleanedLine, phone = rawPhone.cleanedLine
        var problems = FormProblems()
        AccountRules.checkNickname(nickname, into: &problems)
        AccountRules.checkPhone(phone, into: &problems)
        try problems.throwIfAny()
        let now = clock.now()
        return try await database.write { tx in
            guard var user = try tx.accounts.user(id: userId) else { throw AccountError.noSuchUser }
            user.nickname = nickname
            user.phone = phone.isEmpty ? nil : phone
            user.updatedAt = now
            if let picture {
                user.avatarFileId = try tx.files.insert([picture], uploader: userId, at: now)[0].id
            }
            try tx.accounts.update(user)
            try tx.publish(OutgoingEvent(.userUpdated, to: .user(userId),
                                         payload: UserUpdatedPayload(userId: userId, nickname: nickname)))
            return user
        }
    }

    /// Replaces the password after checking the current one, and ends every session of the
    /// user. The browser that changed it stays signed in on a new session (a new token and CSRF
    /// token): whoever had copied the old token holds nothing. Returns the new cookie token.
    func changePassword(userId: Int64, current: String, new: String, confirmation: String,
                        userAgent: String?) async throws -> String {
        guard let user = try await user(id: userId) else { throw AccountError.noSuchUser }
        var problems = FormProblems()
        if try await !hasher.verify(current.nfc, against: user.passwordHash, lane: .other) {
            problems.add(.currentPassword, "error_password_current_wrong")
        }
        AccountRules.checkNewPassword(new.nfc, confirmation: confirmation.nfc, into: &problems)
        try problems.throwIfAny()
        let hash = try await hasher.hash(new.nfc)
        let now = clock.now()
        return try await database.write { tx in
            try tx.accounts.setPassword(hash: hash, userId: userId, at: now)
            // A reset link mailed before the change would undo it: it stops working.
            try tx.passwordResets.removeAll(userId: userId)
            try tx.securityLog.record(.passwordChanged, actor: userId, target: userId, at: now)
            // Every session ends, and their event streams close.
            try AccountAdministration.endSessions(tx, userId: userId, reason: "password_changed")
            return try SessionStore.insert(tx, userId: userId, userAgent: userAgent, at: now).token
        }
    }

    /// The account an import made without a password for this address, if there is one.
    func passwordlessAccount(email: String) throws -> User? {
        let key = User.key(forEmail: email.cleanedLine)
        return try database.query { tx in try tx.accounts.passwordlessUser(emailKey: key) }
    }

    /// Gives an account made without a password its first one (its person followed their
    /// invitation, which was sent to its address). Throws `FormProblems` for a weak or
    /// mismatched password, `invite_invalid` when the account has a password by now.
    func choosePassword(userId: Int64, password: String, confirmation: String) async throws -> User {
        var problems = FormProblems()
        AccountRules.checkNewPassword(password.nfc, confirmation: confirmation.nfc, into: &problems)
        try problems.throwIfAny()
        let hash = try await hasher.hash(password.nfc)
        let now = clock.now()
        return try await database.write { tx in
            guard var user = try tx.accounts.user(id: userId), user.passwordHash.isEmpty, user.isActive else {
                throw AppError.notFound("invite_invalid")
            }
            user.passwordHash = hash
            user.updatedAt = now
            try tx.accounts.update(user)
            return user
        }
    }

    /// Remembers the language the user picked.
    func setLanguage(userId: Int64, lang: String) async throws {
        try await database.write { tx in try tx.accounts.setLanguage(lang, userId: userId) }
    }

    /// Whether someone gets the digest of mentions and direct messages they miss (`/unsubscribe`, the profile).
    func setMailDigest(_ on: Bool, userId: Int64) async throws {
        try await database.write { tx in try tx.accounts.setMailDigest(on, userId: userId) }
    }

    func mailDigest(userId: Int64) throws -> Bool {
        try database.query { tx in try tx.accounts.mailDigest(userId: userId) ?? true }
    }

    // MARK: Operator password resets

    /// Creates a one-time reset link token for the account with `email`, valid for an hour.
    /// Older unused links of the same account stop working. A deactivated account gets none.
    func createPasswordReset(email: String) async throws -> String {
        guard let user = try await user(email: email) else { throw AccountError.noSuchUser }
        guard user.isActive else { throw AccountError.deactivated }
        let token = SecretToken.generate()
        let now = clock.now()
        try await database.write { tx in
            try tx.passwordResets.removeAll(userId: user.id!)
            let reset = PasswordReset(id: nil, tokenHash: SecretToken.hash(token), userId: user.id!, createdAt: now,
                                      expiresAt: now.addingTimeInterval(Self.resetLinkLifetime), usedAt: nil)
            try tx.passwordResets.insert(reset)
        }
        return token
    }

    /// The account a reset token is for, when the token is unused and unexpired and the account
    /// is active.
    func accountForReset(token: String) async throws -> User? {
        let now = clock.now()
        return try await database.queryOffLoop { tx -> User? in
            guard let reset = try tx.passwordResets.reset(tokenHash: SecretToken.hash(token)), reset.usedAt == nil,
                  reset.expiresAt > now
            else { return nil }
            return try tx.accounts.user(id: reset.userId).flatMap { $0.isActive ? $0 : nil }
        }
    }

    /// Sets a new password through a reset link, uses the link up, and signs the account out
    /// everywhere. Throws `AccountError.invalidResetLink` when the link is used or expired, also
    /// when two submissions race.
    func completeReset(token: String, password: String, confirmation: String) async throws -> User {
        var problems = FormProblems()
        AccountRules.checkNewPassword(password.nfc, confirmation: confirmation.nfc, into: &problems)
        guard try await accountForReset(token: token) != nil else { throw AccountError.invalidResetLink }
        try problems.throwIfAny()
        let hash = try await hasher.hash(password.nfc)
        let now = clock.now()
        return try await database.write { tx in
            let used = try tx.passwordResets.live(tokenHash: SecretToken.hash(token), at: now)
            guard let used, var user = try tx.accounts.user(id: used.userId), user.isActive else {
                throw AccountError.invalidResetLink
            }
            try tx.passwordResets.markUsed(id: used.id!, at: now)
            try tx.securityLog.record(.passwordReset, target: user.id, email: user.email, at: now)
            user.passwordHash = hash
            user.updatedAt = now
            try tx.accounts.update(user)
            // Every session ends, and their event streams close.
            try AccountAdministration.endSessions(tx, userId: user.id!, reason: "password_reset")
            return user
        }
    }
}

/// Account operations that cannot go on.
enum AccountError: Error {
    case noSuchUser
    case invalidResetLink
    /// An administrator deactivated the account.
    case deactivated
}
