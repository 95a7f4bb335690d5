import Foundation

/// Two-step sign-in for an account: turning it on (a secret shown once as a QR code and as text,
/// confirmed by a code from the app), checking codes at sign-in (each code once), ten single-use
/// recovery codes for a lost phone, turning it off, and the operator's reset.
struct TwoStepService: Sendable {
    let database: AppDatabase
    let clock: WallClock

    /// Recovery codes made at a time.
    static let recoveryCodeCount = 10

    /// What a code typed at sign-in turned out to be.
    enum Check: Sendable, Equatable {
        case code
        case recoveryCode(left: Int)
        case wrong
    }

    /// A secret waiting to be confirmed (made now when there is none): the enrolment page shows it.
    func pendingSecret(userId: Int64) async throws -> [UInt8] {
        let fresh = Base32.encode(TOTP.newSecret())
        let stored = try await database.write { tx -> String in
            guard let current = try tx.twoStep.state(userId: userId) else { throw AccountError.noSuchUser }
            if current.enabledAt == nil, let secret = current.secret { return secret }
            guard current.enabledAt == nil else { throw AppError.conflict("error_two_step_on") }
            try tx.twoStep.setSecret(fresh, userId: userId)
            return fresh
        }
        return Base32.decode(stored) ?? []
    }

    /// The secret waiting to be confirmed, if one was made.
    func waitingSecret(userId: Int64) throws -> [UInt8]? {
        try database.query { tx -> [UInt8]? in
            guard let state = try tx.twoStep.state(userId: userId), state.enabledAt == nil, let secret = state.secret else { return nil }
            return Base32.decode(secret)
        }
    }

    /// Turns it on when `code` is the app's current code for the waiting secret; answers the
    /// recovery codes (shown once). Throws `FormProblems` for a wrong code.
    func enable(userId: Int64, code: String, address: String) async throws -> [String] {
        let now = clock.now()
        let codes = Self.newRecoveryCodes()
        try await database.write { tx in
            guard let state = try tx.twoStep.state(userId: userId), state.enabledAt == nil, let text = state.secret,
                  let secret = Base32.decode(text)
            else { throw AppError.conflict("error_two_step_on") }
            guard let step = TOTP.matchingStep(code, secret: secret, at: now, after: 0) else {
                throw FormProblems([.code: "error_two_step_code"])
            }
            try tx.twoStep.enable(userId: userId, step: step, at: now)
            try Self.storeRecoveryCodes(tx, codes, userId: userId)
            try tx.securityLog.record(.twoStepOn, actor: userId, target: userId, address: address, at: now)
        }
        return codes
    }

    /// Checks a code typed at sign-in: the app's (each step once), or an unused recovery code
    /// (used up by this).
    func check(userId: Int64, typed: String) async throws -> Check {
        let now = clock.now()
        return try await database.write { tx -> Check in
            guard let state = try tx.twoStep.state(userId: userId), state.enabledAt != nil, let text = state.secret,
                  let secret = Base32.decode(text)
            else { return .wrong }
            if let step = TOTP.matchingStep(typed, secret: secret, at: now, after: state.lastStep) {
                try tx.twoStep.acceptStep(step, userId: userId)
                return .code
            }
            let hash = SecretToken.hash(Self.normalized(typed))
            guard try tx.twoStep.useRecoveryCode(hash: hash, userId: userId, at: now) else { return .wrong }
            let left = try tx.twoStep.recoveryCodesLeft(userId: userId)
            return .recoveryCode(left: left)
        }
    }

    /// Recovery codes not yet used.
    func recoveryCodesLeft(userId: Int64) throws -> Int {
        try database.query { tx in try tx.twoStep.recoveryCodesLeft(userId: userId) }
    }

    /// Ten new recovery codes in place of the old ones (shown once).
    func renewRecoveryCodes(userId: Int64, address: String) async throws -> [String] {
        let now = clock.now(), codes = Self.newRecoveryCodes()
        try await database.write { tx in
            try Self.storeRecoveryCodes(tx, codes, userId: userId)
            try tx.securityLog.record(.recoveryCodesRenewed, actor: userId, target: userId, address: address, at: now)
        }
        return codes
    }

    /// Turns it off: the secret and the recovery codes go. `actor` nil: the operator's reset.
    func disable(userId: Int64, actor: Int64?, address: String = "") async throws {
        let now = clock.now()
        try await database.write { tx in
            try tx.twoStep.disable(userId: userId, at: now)
            try tx.securityLog.record(actor == nil ? .twoStepReset : .twoStepOff, actor: actor, target: userId, address: address, at: now)
        }
    }

    /// Puts `codes` in place of the account's recovery codes, kept as hashes of the way they are
    /// typed (`normalized`).
    private static func storeRecoveryCodes(_ tx: any StoreTransaction, _ codes: [String], userId: Int64) throws {
        try tx.twoStep.replaceRecoveryCodes(hashes: codes.map { SecretToken.hash(normalized($0)) }, userId: userId)
    }

    /// Ten codes like `k7qd2-mx4pa`: 50 random bits each, in letters and digits that are hard to
    /// mistake for one another.
    static func newRecoveryCodes() -> [String] {
        let alphabet = Array("abcdefghjkmnpqrstuvwxyz23456789")
        var generator = SystemRandomNumberGenerator()
        return (0..<recoveryCodeCount).map { _ in
            let characters = (0..<10).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] }
            return String(characters[0..<5]) + "-" + String(characters[5...])
        }
    }

    /// A recovery code as typed, the way it is stored: lowercase, without spaces or dashes.
    static func normalized(_ typed: String) -> String {
        String(typed.lowercased().filter { $0.isLetter || $0.isNumber })
    }
}
