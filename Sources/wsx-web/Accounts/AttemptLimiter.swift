import Crypto
import Foundation

/// Counts attempts per key in a sliding window, and reserves each attempt before the work it
/// guards begins.
///
/// Reserving first is what makes a limit hold under parallel requests: 150 guesses sent at
/// once were all checked when the count was only looked at before and written after. Here the
/// 11th of them finds ten reserved and is refused at once, before any password is hashed. A
/// reservation is settled afterwards: `counted` keeps it as a dated attempt for the window
/// (a failed sign-in, a sign-up made); otherwise it is released.
///
/// With several nodes on one PostgreSQL database the attempts are counted there
/// (`PostgresAttempts`), so every node counts every node's. Otherwise in memory: a restart
/// forgets, acceptable for one process. Keys are kept as their SHA-256
/// (32 bytes, whatever the e-mail a guesser typed: 1,000 sign-ins with 1 MB addresses took
/// 1.5 GB for good), a refused attempt stores nothing, and past `maximumKeys` old ones go.
actor AttemptLimiter {
    /// At most `limit` attempts per `window` seconds.
    struct Rule: Sendable, Equatable {
        var limit: Int
        var window: TimeInterval
    }

    /// One limit an attempt must respect: its rule, for this key.
    struct Check: Sendable {
        let key: String
        let rule: Rule
    }

    /// A reserved attempt, to settle once its outcome is known.
    struct Ticket: Sendable {
        fileprivate let checks: [Check]
        /// Its rows, when the attempts are counted in PostgreSQL.
        fileprivate var reservations: [Int64] = []
    }

    enum Verdict: Sendable {
        case proceed(Ticket)
        /// Refused; seconds until a new attempt could go through.
        case wait(seconds: Int)
    }

    private struct Record {
        var attempts: [Date] = []
        var reserved = 0
    }

    private let clock: WallClock
    private let shared: PostgresAttempts?
    private var records: [SHA256Digest: Record] = [:]
    private static let maximumKeys = 100_000

    /// Counting in memory, or in the database several nodes share (`postgres`).
    init(clock: WallClock, postgres: PostgresBackend? = nil) {
        self.clock = clock
        shared = postgres.map { PostgresAttempts(backend: $0) }
    }

    /// Reserves an attempt under every check, or none when any of them is at its limit. When
    /// the shared count cannot be reached the attempt waits a moment: a limiter that cannot
    /// count refuses rather than lets everything through.
    func reserve(_ checks: [Check]) async -> Verdict {
        guard let shared else { return reserveHere(checks) }
        let limits = checks.map { PostgresAttempts.Limit(key: PostgresAttempts.key($0.key), limit: $0.rule.limit, window: $0.rule.window) }
        do {
            switch try await shared.reserve(limits, at: clock.now()) {
            case .reserved(let ids): return .proceed(Ticket(checks: checks, reservations: ids))
            case .wait(let seconds): return .wait(seconds: seconds)
            }
        } catch {
            return .wait(seconds: 5)
        }
    }

    private func reserveHere(_ checks: [Check]) -> Verdict {
        let now = clock.now()
        if records.count > Self.maximumKeys { prune(now: now) }
        var wait = 0
        for check in checks {
            let key = Self.key(check.key)
            guard var record = records[key] else { continue }
            record.attempts.removeAll { now.timeIntervalSince($0) >= check.rule.window }
            records[key] = record.attempts.isEmpty && record.reserved == 0 ? nil : record
            let total = record.attempts.count + record.reserved
            guard total >= check.rule.limit else { continue }
            // How many must leave the window before one more fits; reserved ones may be released soon.
            let leaving = total - check.rule.limit + 1
            if leaving <= record.attempts.count {
                let oldest = record.attempts[leaving - 1]
                wait = max(wait, max(1, Int((check.rule.window - now.timeIntervalSince(oldest)).rounded(.up))))
            } else {
                wait = max(wait, 1)
            }
        }
        if wait > 0 { return .wait(seconds: wait) }
        for check in checks { records[Self.key(check.key), default: Record()].reserved += 1 }
        return .proceed(Ticket(checks: checks))
    }

    /// Settles a reservation: kept as an attempt of the window when `counted`, else released.
    func settle(_ ticket: Ticket, counted: Bool) async {
        let now = clock.now()
        if let shared {
            try? await shared.settle(ticket.reservations, counted: counted, at: now)
            return
        }
        for check in ticket.checks {
            let key = Self.key(check.key)
            guard var record = records[key] else { continue }
            record.reserved = max(0, record.reserved - 1)
            if counted { record.attempts.append(now) }
            records[key] = record.attempts.isEmpty && record.reserved == 0 ? nil : record
        }
    }

    /// Forgets the attempts of `keys` (a sign-in succeeded).
    func clear(_ keys: [String]) async {
        if let shared {
            try? await shared.clear(keys.map(PostgresAttempts.key))
            return
        }
        for text in keys {
            let key = Self.key(text)
            records[key]?.attempts = []
            if records[key]?.reserved == 0 { records[key] = nil }
        }
    }

    /// How many keys are remembered (tests: what a flood leaves behind).
    var keyCount: Int { records.count }

    private static func key(_ text: String) -> SHA256Digest {
        SHA256.hash(data: Data(text.utf8))
    }

    private func prune(now: Date) {
        // Without a rule at hand, anything older than a day is surely out of every window.
        records = records.compactMapValues { record in
            var kept = record
            kept.attempts.removeAll { now.timeIntervalSince($0) >= 86_400 }
            return kept.attempts.isEmpty && kept.reserved == 0 ? nil : kept
        }
    }
}
