import Foundation

/// A bucket that holds up to `capacity` tokens and gains `perSecond` of them every second: a burst
/// of `capacity` goes through at once, then `perSecond` on average (Mattermost's rate limiter
/// works this way, and so do its defaults for posts: a burst of 100, then 10 a second).
///
/// A cost larger than the whole bucket (one upload bigger than a minute's allowance) goes through
/// when the bucket is full and leaves it in debt, so nothing is refused for ever and the average
/// still holds.
struct TokenBucket: Sendable, Equatable {
    let capacity: Double
    let perSecond: Double
    private(set) var tokens: Double
    private(set) var updated: Date

    init(capacity: Double, perSecond: Double, now: Date) {
        self.capacity = capacity
        self.perSecond = perSecond
        tokens = capacity
        self.updated = now
    }

    /// Takes `cost` tokens and answers nil, or takes nothing and answers the whole seconds to
    /// wait until it could.
    mutating func take(_ cost: Double, now: Date) -> Int? {
        refill(now: now)
        let needed = min(cost, capacity)
        guard tokens >= needed else {
            return max(1, Int(((needed - tokens) / perSecond).rounded(.up)))
        }
        tokens -= cost
        return nil
    }

    /// The same bucket with another capacity and rate, holding what it held by `now` (at most
    /// the new capacity).
    func reshaped(capacity: Double, perSecond: Double, now: Date) -> TokenBucket {
        var copy = self
        copy.refill(now: now)
        var reshaped = TokenBucket(capacity: capacity, perSecond: perSecond, now: now)
        reshaped.tokens = min(capacity, copy.tokens)
        return reshaped
    }

    /// Whether the bucket has refilled completely by `now`, so forgetting it changes nothing.
    func isFull(at now: Date) -> Bool {
        tokens + now.timeIntervalSince(updated) * perSecond >= capacity
    }

    private mutating func refill(now: Date) {
        let elapsed = max(0, now.timeIntervalSince(updated))
        tokens = min(capacity, tokens + elapsed * perSecond)
        updated = now
    }
}
