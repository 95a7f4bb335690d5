import Foundation
import HTTPTypes
import Synchronization

/// How fast one account may post, upload and search (`--post-burst`, `--posts-per-second`,
/// `--upload-bytes-per-minute`, `--searches-per-minute`); 0 turns a limit off.
struct RateLimits: Sendable, Equatable {
    /// Posts (messages and replies) at once, then `postsPerSecond` on average.
    var postBurst = 100
    var postsPerSecond = 10.0
    /// Request bytes of uploads per minute, in a burst or spread out.
    var uploadBytesPerMinute = 500 << 20
    /// Searches per minute, in a burst or spread out.
    var searchesPerMinute = 60
    /// Custom status changes per minute: each goes to everyone who shares a workspace with the
    /// person, so a loop of them was a flood of events to hundreds of streams.
    var statusChangesPerMinute = 10

    /// Every limit off: for suites and benchmarks that post, upload or search in bulk.
    static let off = RateLimits(postBurst: 0, postsPerSecond: 0, uploadBytesPerMinute: 0, searchesPerMinute: 0,
                                statusChangesPerMinute: 0)
}

/// What a limited account does; each kind has its own buckets and its own refusal message.
enum LimitedAction: String, Sendable, CaseIterable {
    /// Messages, replies and edits.
    case post, upload, search, status

    /// The key of the refusal's message (its `{0}` is the seconds to wait).
    var messageKey: String { "error_rate_\(rawValue)" }
}

/// One token bucket per account and action, in memory (a restart forgets, as the sign-in
/// throttle does). Checked before anything is stored: a refusal is a 429 with `Retry-After`,
/// and the request changed nothing.
///
/// With several nodes each holds its share of every bucket, the limit divided by the nodes
/// alive (`LiveNodes`): together they never allow more than the limit, and a load balancer that
/// spreads an account's requests evenly gives it the whole limit. Posts are too frequent to
/// count each in the database, as the sign-in limits are.
final class AccountRateLimiter: Sendable {
    private struct Key: Hashable {
        let action: LimitedAction
        let userId: Int64
    }

    private let limits: RateLimits
    private let clock: WallClock
    private let nodes: LiveNodes
    private let buckets = Mutex<[Key: TokenBucket]>([:])
    /// Past this many accounts with a bucket, full buckets are forgotten (they would change nothing).
    private static let pruneAbove = 10_000

    init(limits: RateLimits, clock: WallClock, nodes: LiveNodes = LiveNodes()) {
        self.limits = limits
        self.clock = clock
        self.nodes = nodes
    }

    /// Charges `cost` (one post, one search, or an upload's bytes) to the account, or throws
    /// a 429 `AppError` saying how long to wait.
    func charge(_ action: LimitedAction, userId: Int64, cost: Double = 1) throws {
        guard let shape = shape(of: action) else { return }
        let now = clock.now()
        let wait: Int? = buckets.withLock { buckets in
            if buckets.count > Self.pruneAbove { buckets = buckets.filter { !$0.value.isFull(at: now) } }
            let key = Key(action: action, userId: userId)
            var bucket = buckets[key] ?? TokenBucket(capacity: shape.capacity, perSecond: shape.perSecond, now: now)
            if bucket.capacity != shape.capacity {
                // The nodes' count changed: this node's share, keeping no more than it had.
                bucket = bucket.reshaped(capacity: shape.capacity, perSecond: shape.perSecond, now: now)
            }
            let wait = bucket.take(cost, now: now)
            buckets[key] = bucket
            return wait
        }
        if let wait { throw Self.refusal(action, seconds: wait) }
    }

    /// The 429 a refused action answers: its message in the visitor's language, `Retry-After`.
    static func refusal(_ action: LimitedAction, seconds: Int) -> AppError {
        AppError(status: .tooManyRequests, messageKey: action.messageKey, headers: [.retryAfter: "\(seconds)"],
                 arguments: ["\(seconds)"])
    }

    /// This node's share of the action's bucket.
    private func shape(of action: LimitedAction) -> (capacity: Double, perSecond: Double)? {
        guard let whole = wholeShape(of: action) else { return nil }
        let share = Double(nodes.current)
        return (whole.capacity / share, whole.perSecond / share)
    }

    private func wholeShape(of action: LimitedAction) -> (capacity: Double, perSecond: Double)? {
        switch action {
        case .post:
            guard limits.postBurst > 0, limits.postsPerSecond > 0 else { return nil }
            return (Double(limits.postBurst), limits.postsPerSecond)
        case .upload:
            guard limits.uploadBytesPerMinute > 0 else { return nil }
            return (Double(limits.uploadBytesPerMinute), Double(limits.uploadBytesPerMinute) / 60)
        case .search:
            guard limits.searchesPerMinute > 0 else { return nil }
            return (Double(limits.searchesPerMinute), Double(limits.searchesPerMinute) / 60)
        case .status:
            guard limits.statusChangesPerMinute > 0 else { return nil }
            return (Double(limits.statusChangesPerMinute), Double(limits.statusChangesPerMinute) / 60)
        }
    }
}
