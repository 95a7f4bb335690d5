import Foundation
import HummingbirdBcrypt
import NIOPosix

/// Hashes and checks passwords with bcrypt, off the cooperative thread pool (a cost-12 hash
/// takes a quarter of a second of CPU and would stall every other request on that thread).
struct PasswordHasher: Sendable {
    /// bcrypt's work factor; 12 in production, lower in tests.
    let cost: UInt8

    /// bcrypt reads at most 72 bytes; longer passwords are refused rather than silently cut.
    static let maximumBytes = 72

    func hash(_ password: String) async throws -> String {
        let cost = self.cost
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(password, cost: cost) }
    }

    func verify(_ password: String, against hash: String) async throws -> Bool {
        try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(password, hash: hash) }
    }

    /// Spends the same time as a real check, for sign-in attempts with an unknown email, so the
    /// response time does not tell which emails have accounts.
    func verifyAgainstNothing(_ password: String) async throws {
        _ = try await verify(password, against: decoyHash)
    }

    /// A well-formed bcrypt hash at this hasher's cost that no password matches: checking against
    /// it costs the same as checking a real one.
    private var decoyHash: String {
        "$2b$" + String(format: "%02d", Int(cost)) + "$" + String(repeating: "C", count: 53)
    }
}
