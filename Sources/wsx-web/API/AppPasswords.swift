import Foundation

/// App passwords: how a person with two-step sign-in signs in to the apps, which ask for no code.
/// Each is made on the profile page for one device, shown once (four groups of four letters and
/// digits, 80 bits), kept as its SHA-256 (it is random, so no slow hash is needed), and revoked
/// there; the apps' sign-ins made with it end with it.
struct AppPasswords: Sendable {
    let database: AppDatabase
    let clock: WallClock

    /// The longest name an app password may have.
    static let nameLimit = 40

    /// Makes one for `userId`'s device `name`; answers it and the password, shown once.
    func create(userId: Int64, name rawName: String) async throws -> (AppPassword, String) {
        let name = String(rawName.cleanedLine.prefix(Self.nameLimit))
        guard !name.isEmpty else { throw FormProblems([.name: "error_app_password_name"]) }
        let password = Self.generate(), now = clock.now()
        let made = try await database.write { tx in
            try tx.appPasswords.insert(userId: userId, name: name, passwordHash: Self.hash(password), at: now)
        }
        return (made, password)
    }

    func list(userId: Int64) async throws -> [AppPassword] {
        try await database.queryOffLoop { tx in try tx.appPasswords.passwords(userId: userId) }
    }

    func revoke(id: Int64, userId: Int64) async throws -> Bool {
        try await database.write { tx in try tx.appPasswords.delete(id: id, userId: userId) }
    }

    /// `userId`'s app password `typed` is (spaces, dashes and letter case aside), noted as used.
    func match(userId: Int64, typed: String) async throws -> AppPassword? {
        let hash = Self.hash(typed), now = clock.now()
        return try await database.write { tx in
            guard let found = try tx.appPasswords.password(userId: userId, passwordHash: hash) else { return nil }
            try tx.appPasswords.touch(id: found.id, at: now)
            return found
        }
    }

    /// 16 characters of an alphabet without look-alikes (no 0/o, 1/l/i), in groups of four.
    static func generate() -> String {
        let alphabet = Array("abcdefghjkmnpqrstuvwxyz23456789")
        var generator = SystemRandomNumberGenerator()
        let letters = (0..<16).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] }
        return stride(from: 0, to: 16, by: 4).map { String(letters[$0..<$0 + 4]) }.joined(separator: "-")
    }

    static func hash(_ typed: String) -> String {
        SecretToken.hash(typed.lowercased().filter { $0.isLetter || $0.isNumber })
    }
}
