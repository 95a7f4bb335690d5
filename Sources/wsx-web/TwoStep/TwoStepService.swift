import Foundation
import GRDB

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
        let stored = try await database.writer.write { db -> String in
            let current = try Row.fetchOne(db, sql: "SELECT totp_secret, totp_enabled_at FROM users WHERE id = ?", arguments: [userId])
            guard let current else { throw AccountError.noSuchUser }
            if (current["totp_enabled_at"] as Date?) == nil, let secret = current["totp_secret"] as String? { return secret }
            guard (current["totp_enabled_at"] as Date?) == nil else { throw AppError.conflict("error_two_step_on") }
            try db.execute(sql: "UPDATE users SET totp_secret = ? WHERE id = ?", arguments: [fresh, userId])
            return fresh
        }
        return Base32.decode(stored) ?? []
    }

    /// The secret waiting to be confirmed, if one was made.
    func waitingSecret(userId: Int64) throws -> [UInt8]? {
        try database.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT totp_secret, totp_enabled_at FROM users WHERE id = ?", arguments: [userId]),
                  (row["totp_enabled_at"] as Date?) == nil, let secret = row["totp_secret"] as String? else { return nil }
            return Base32.decode(secret)
        }
    }

    /// Turns it on when `code` is the app's current code for the waiting secret; answers the
    /// recovery codes (shown once). Throws `FormProblems` for a wrong code.
    func enable(userId: Int64, code: String, address: String) async throws -> [String] {
        let now = clock.now()
        let codes = Self.newRecoveryCodes()
        try await database.writer.write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT totp_secret, totp_enabled_at FROM users WHERE id = ?", arguments: [userId]),
                  (row["totp_enabled_at"] as Date?) == nil, let text = row["totp_secret"] as String?, let secret = Base32.decode(text)
            else { throw AppError.conflict("error_two_step_on") }
            guard let step = TOTP.matchingStep(code, secret: secret, at: now, after: 0) else {
                throw FormProblems([.code: "error_two_step_code"])
            }
            try db.execute(sql: "UPDATE users SET totp_enabled_at = ?, totp_last_step = ?, updated_at = ? WHERE id = ?",
                           arguments: [now, step, now, userId])
            try Self.storeRecoveryCodes(db, codes, userId: userId)
            try SecurityLog.record(db, .twoStepOn, actor: userId, target: userId, address: address, at: now)
        }
        return codes
    }

    /// Checks a code typed at sign-in: the app's (each step once), or an unused recovery code
    /// (used up by this).
    func check(userId: Int64, typed: String) async throws -> Check {
        let now = clock.now()
        return try await database.writer.write { db -> Check in
            guard let row = try Row.fetchOne(db, sql: "SELECT totp_secret, totp_enabled_at, totp_last_step FROM users WHERE id = ?",
                                             arguments: [userId]),
                  (row["totp_enabled_at"] as Date?) != nil, let text = row["totp_secret"] as String?, let secret = Base32.decode(text)
            else { return .wrong }
            if let step = TOTP.matchingStep(typed, secret: secret, at: now, after: row["totp_last_step"]) {
                try db.execute(sql: "UPDATE users SET totp_last_step = ? WHERE id = ?", arguments: [step, userId])
                return .code
            }
            let hash = SecretToken.hash(Self.normalized(typed))
            guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM recovery_codes WHERE user_id = ? AND code_hash = ? AND used_at IS NULL",
                                              arguments: [userId, hash]) else { return .wrong }
            try db.execute(sql: "UPDATE recovery_codes SET used_at = ? WHERE id = ?", arguments: [now, id])
            let left = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM recovery_codes WHERE user_id = ? AND used_at IS NULL",
                                        arguments: [userId]) ?? 0
            return .recoveryCode(left: left)
        }
    }

    /// Recovery codes not yet used.
    func recoveryCodesLeft(userId: Int64) throws -> Int {
        try database.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM recovery_codes WHERE user_id = ? AND used_at IS NULL", arguments: [userId]) ?? 0
        }
    }

    /// Ten new recovery codes in place of the old ones (shown once).
    func renewRecoveryCodes(userId: Int64, address: String) async throws -> [String] {
        let now = clock.now(), codes = Self.newRecoveryCodes()
        try await database.writer.write { db in
            try Self.storeRecoveryCodes(db, codes, userId: userId)
            try SecurityLog.record(db, .recoveryCodesRenewed, actor: userId, target: userId, address: address, at: now)
        }
        return codes
    }

    /// Turns it off: the secret and the recovery codes go. `actor` nil: the operator's reset.
    func disable(userId: Int64, actor: Int64?, address: String = "") async throws {
        let now = clock.now()
        try await database.writer.write { db in
            try db.execute(sql: "UPDATE users SET totp_secret = NULL, totp_enabled_at = NULL, totp_last_step = 0, updated_at = ? WHERE id = ?",
                           arguments: [now, userId])
            try db.execute(sql: "DELETE FROM recovery_codes WHERE user_id = ?", arguments: [userId])
            try SecurityLog.record(db, actor == nil ? .twoStepReset : .twoStepOff, actor: actor, target: userId, address: address, at: now)
        }
    }

    private static func storeRecoveryCodes(_ db: Database, _ codes: [String], userId: Int64) throws {
        try db.execute(sql: "DELETE FROM recovery_codes WHERE user_id = ?", arguments: [userId])
        for code in codes {
            try db.execute(sql: "INSERT INTO recovery_codes (user_id, code_hash) VALUES (?, ?)",
                           arguments: [userId, SecretToken.hash(normalized(code))])
        }
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
