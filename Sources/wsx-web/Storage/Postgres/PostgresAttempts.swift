import Crypto
import Foundation
import PostgresNIO

/// The attempts the limiters count (`AttemptLimiter`: sign-ins, sign-ups, reset requests,
/// invitations), kept in PostgreSQL so that every node counts every node's: ten wrong passwords
/// are ten however the load balancer spread them.
///
/// A reservation locks its keys for its transaction (`pg_advisory_xact_lock`, in one order, so
/// two reservations never wait on each other in a circle), counts the attempts in each key's
/// window and those reserved and under way, and either inserts one reserved row per key or
/// answers how long to wait. A reserved row a node never settled (it died mid-attempt) stops
/// counting after `abandonedAfter`.
struct PostgresAttempts: Sendable {
    let backend: PostgresBackend
    /// How long a reservation counts without being settled.
    static let abandonedAfter: TimeInterval = 300

    /// One limit, as `AttemptLimiter.Check` has it, with its key hashed.
    struct Limit: Sendable {
        let key: Data
        let limit: Int
        let window: TimeInterval
    }

    enum Outcome: Sendable, Equatable {
        /// Reserved: the rows to settle.
        case reserved([Int64])
        /// Refused; seconds until a new attempt could go through.
        case wait(seconds: Int)
    }

    static func key(_ text: String) -> Data {
        Data(SHA256.hash(data: Data(text.utf8)))
    }

    func reserve(_ limits: [Limit], at now: Date) async throws -> Outcome {
        try await backend.withSession { session in
            try session.transaction {
                // Anything a day old is out of every window.
                try session.run("DELETE FROM limiter_attempts WHERE at < \(now.addingTimeInterval(-86_400))")
                for key in Set(limits.map(\.key)).sorted(by: { $0.lexicographicallyPrecedes($1) }) {
                    try session.run("SELECT pg_advisory_xact_lock(\(Self.lockKey(key)))")
                }
                var wait = 0
                for limit in limits {
                    let rows = try session.run("""
                        SELECT at, counted FROM limiter_attempts
                        WHERE key = \(limit.key) AND at > \(now.addingTimeInterval(-max(limit.window, Self.abandonedAfter)))
                        ORDER BY at
                        """)
                    var counted: [Date] = [], reserved = 0
                    for row in rows {
                        let (at, isCounted) = try row.decode((Date, Bool).self)
                        if isCounted {
                            if now.timeIntervalSince(at) < limit.window { counted.append(at) }
                        } else if now.timeIntervalSince(at) < Self.abandonedAfter {
                            reserved += 1
                        }
                    }
                    let total = counted.count + reserved
                    guard total >= limit.limit else { continue }
                    let leaving = total - limit.limit + 1
                    if leaving <= counted.count {
                        let oldest = counted[leaving - 1]
                        wait = max(wait, max(1, Int((limit.window - now.timeIntervalSince(oldest)).rounded(.up))))
                    } else {
                        wait = max(wait, 1)
                    }
                }
                if wait > 0 { return .wait(seconds: wait) }
                return .reserved(try limits.map { limit in
                    try session.run("INSERT INTO limiter_attempts (key, at) VALUES (\(limit.key), \(now)) RETURNING id")
                        .first!.decode(Int64.self)
                })
            }
        }
    }

    /// Settles reserved rows: kept as attempts made at `now` when `counted`, else removed.
    func settle(_ ids: [Int64], counted: Bool, at now: Date) async throws {
        guard !ids.isEmpty else { return }
        try await backend.withSession { session in
            if counted {
                try session.run("UPDATE limiter_attempts SET counted = true, at = \(now) WHERE id = ANY(\(ids))")
            } else {
                try session.run("DELETE FROM limiter_attempts WHERE id = ANY(\(ids))")
            }
        }
    }

    /// Forgets the counted attempts of `keys`.
    func clear(_ keys: [Data]) async throws {
        try await backend.withSession { session in
            for key in keys { try session.run("DELETE FROM limiter_attempts WHERE key = \(key) AND counted") }
        }
    }

    /// The advisory lock of a key: its hash's first eight bytes.
    private static func lockKey(_ key: Data) -> Int64 {
        key.prefix(8).reduce(Int64(0)) { ($0 << 8) | Int64($1) }
    }
}
