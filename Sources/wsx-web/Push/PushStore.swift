import Foundation
import Views

/// Browsers' push subscriptions and the queue of pushes to them (`push_subscriptions`,
/// `push_queue`). Their storage is the transaction's `PushSubscriptionStore` (`tx.push`), so
/// another storage backend replaces that store, not this file.
struct PushStore: Sendable {
    /// A browser's subscription as the browser handed it over.
    struct Subscription: Sendable, Equatable {
        let endpoint: String
        let p256dh: Data
        let auth: Data
    }

    /// Someone a push may go to: one subscription of a member of the room, with their level there.
    struct Recipient: Sendable {
        let subscriptionId: Int64
        let userId: Int64
        let level: NotifyLevel
    }

    /// A push waiting for its turn, with what sealing and sending it needs.
    struct Due: Sendable {
        let id: Int64
        let subscriptionId: Int64
        let subscription: Subscription
        let payload: String
        let attempts: Int
    }

    /// At most this many subscriptions per person: a new one replaces their oldest.
    static let perPerson = 20

    let database: AppDatabase
    let clock: WallClock

    /// Keeps `subscription` for `userId`, made in `sessionId` (signing out removes it). The same
    /// endpoint again moves to this person and session with its new keys.
    func subscribe(_ subscription: Subscription, userId: Int64, sessionId: Int64) async throws {
        let now = clock.now()
        try await database.write { tx in
            try tx.push.subscribe(subscription, userId: userId, sessionId: sessionId, keeping: Self.perPerson, at: now)
        }
    }

    /// Forgets `userId`'s subscription at `endpoint` (their browser unsubscribed).
    func unsubscribe(endpoint: String, userId: Int64) async throws {
        try await database.write { tx in try tx.push.unsubscribe(endpoint: endpoint, userId: userId) }
    }

    /// How many subscriptions `userId` has.
    func count(userId: Int64) throws -> Int {
        try database.query { tx in try tx.push.count(userId: userId) }
    }

    /// The subscriptions of the room's members but `authorId`, with each one's level for the
    /// room (their own, else their default).
    func recipients(roomId: Int64, authorId: Int64?) throws -> [Recipient] {
        try database.query { tx in try tx.push.recipients(roomId: roomId, authorId: authorId) }
    }

    /// Queues `payload` for each subscription, due now.
    func enqueue(_ payload: String, to subscriptionIds: [Int64]) async throws {
        guard !subscriptionIds.isEmpty else { return }
        let now = clock.now()
        try await database.write { tx in try tx.push.enqueue(payload, to: subscriptionIds, at: now) }
    }

    /// Pushes due now, oldest first, taken for sending by this sender alone (another node's sender
    /// passes them over) until `lease` from now: finished, retried or dropped before then, they
    /// are done; if this server stops before, they are due again then.
    func claimDue(limit: Int = 50, lease: TimeInterval = PushStore.claimLease) async throws -> [Due] {
        let now = clock.now()
        return try await database.write { tx in try tx.push.claim(at: now, limit: limit, until: now.addingTimeInterval(lease)) }
    }

    /// How long a sender keeps the pushes it took: far longer than a round of fifty takes, eight
    /// at a time, each bounded by the fetcher's timeout.
    static let claimLease: TimeInterval = 10 * 60

    /// When the next waiting push is due, if any waits.
    func nextDue() throws -> Date? {
        try database.query { tx in try tx.push.nextDue() }
    }

    /// The push service took it, or will never: it leaves the queue.
    func finish(_ id: Int64) async throws {
        try await database.write { tx in try tx.push.finish(id: id) }
    }

    /// Tries it again at `at`.
    func retry(_ id: Int64, at: Date) async throws {
        try await database.write { tx in try tx.push.retry(id: id, at: at) }
    }

    /// The push service says the subscription is gone (404, 410): it goes, with its queue.
    func drop(subscriptionId: Int64) async throws {
        try await database.write { tx in try tx.push.drop(subscriptionId: subscriptionId) }
    }
}
