import Foundation
import HummingbirdBcrypt

/// Hashes and checks passwords with bcrypt, off the event loops and the cooperative pool (a
/// cost-12 hash takes a quarter of a second of CPU and would stall every other request on that
/// thread), one per core at a time through `queue`, each on a thread of its own: never on NIO's
/// shared pool, where link-preview hosts are looked up and PostgreSQL connections resolve their
/// host, so a wave of sign-ins holds neither up and a stuck lookup holds up no sign-in.
struct PasswordHasher: Sendable {
    /// bcrypt's work factor; 12 in production, lower in tests.
    let cost: UInt8
    let queue: HashingQueue

    init(cost: UInt8, queue: HashingQueue = HashingQueue()) {
        self.cost = cost
        self.queue = queue
    }

    /// bcrypt reads at most 72 bytes; longer passwords are refused rather than silently cut.
    static let maximumBytes = 72

    func hash(_ password: String) async throws -> String {
        let cost = self.cost
        return try await inLine(.other) { Bcrypt.hash(password, cost: cost) }
    }

    /// Checks a password; `lane` says whether it signs someone in (first in line) or confirms a
    /// change.
    func verify(_ password: String, against hash: String, lane: HashingQueue.Lane = .signIn) async throws -> Bool {
        try await inLine(lane) { Bcrypt.verify(password, hash: hash) }
    }

    /// Runs `work` on a thread of its own when the queue gives it a turn; a full queue is a 503.
    /// The queue bounds how many such threads there are (one per core); starting one costs
    /// microseconds against a hash's hundreds of milliseconds.
    private func inLine<T: Sendable>(_ lane: HashingQueue.Lane, _ work: @escaping @Sendable () -> T) async throws -> T {
        do {
            return try await queue.run(lane) {
                await withCheckedContinuation { answer in
                    Thread.detachNewThread { answer.resume(returning: work()) }
                }
            }
        } catch is HashingQueue.Busy {
            throw AppError.busy
        }
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
