import Synchronization

/// How many nodes serve the team now: 1 on SQLite; on PostgreSQL, those seen within the last
/// heartbeats (`PostgresNodeSignals` counts them). Per-account rate limits give each node its
/// share of the configured limit (`AccountRateLimiter`), so together they never allow more.
final class LiveNodes: Sendable {
    private let count = Atomic<Int>(1)

    /// At least 1.
    var current: Int { count.load(ordering: .relaxed) }

    func set(_ nodes: Int) {
        count.store(max(1, nodes), ordering: .relaxed)
    }
}
