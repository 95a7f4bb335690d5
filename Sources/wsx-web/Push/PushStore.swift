import Foundation
import GRDB
import Views

/// Browsers' push subscriptions and the queue of pushes to them (`push_subscriptions`,
/// `push_queue`). SQL about push lives here, so another storage backend replaces this one file.
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
        let now = Timestamps.database(clock.now())
        try await database.writer.write { db in
            try db.execute(sql: """
                INSERT INTO push_subscriptions (user_id, session_id, endpoint, p256dh, auth, created_at) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (endpoint) DO UPDATE SET user_id = excluded.user_id, session_id = excluded.session_id,
                    p256dh = excluded.p256dh, auth = excluded.auth
                """, arguments: [userId, sessionId, subscription.endpoint, subscription.p256dh, subscription.auth, now])
            try db.execute(sql: """
                DELETE FROM push_subscriptions WHERE user_id = ? AND id NOT IN
                    (SELECT id FROM push_subscriptions WHERE user_id = ? ORDER BY id DESC LIMIT ?)
                """, arguments: [userId, userId, Self.perPerson])
        }
    }

    /// Forgets `userId`'s subscription at `endpoint` (their browser unsubscribed).
    func unsubscribe(endpoint: String, userId: Int64) async throws {
        try await database.writer.write { db in
            try db.execute(sql: "DELETE FROM push_subscriptions WHERE endpoint = ? AND user_id = ?", arguments: [endpoint, userId])
        }
    }

    /// How many subscriptions `userId` has.
    func count(userId: Int64) throws -> Int {
        try database.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM push_subscriptions WHERE user_id = ?", arguments: [userId]) ?? 0
        }
    }

    /// The subscriptions of the room's members but `authorId`, with each one's level for the
    /// room (their own, else their default).
    func recipients(roomId: Int64, authorId: Int64?) throws -> [Recipient] {
        try database.read { db in
            try Row.fetchAll(db.cachedStatement(sql: """
                SELECT push_subscriptions.id, push_subscriptions.user_id, COALESCE(room_members.notify_level, users.notify_default)
                FROM push_subscriptions
                JOIN room_members ON room_members.user_id = push_subscriptions.user_id AND room_members.room_id = ?
                JOIN users ON users.id = push_subscriptions.user_id AND users.deactivated_at IS NULL
                WHERE push_subscriptions.user_id IS NOT ?
                """), arguments: [roomId, authorId]).map { row in
                Recipient(subscriptionId: row[0], userId: row[1], level: NotifyLevel(rawValue: row[2]) ?? .standard)
            }
        }
    }

    /// Queues `payload` for each subscription, due now.
    func enqueue(_ payload: String, to subscriptionIds: [Int64]) async throws {
        guard !subscriptionIds.isEmpty else { return }
        let now = Timestamps.database(clock.now())
        try await database.writer.write { db in
            let insert = try db.cachedStatement(sql: """
                INSERT INTO push_queue (subscription_id, payload, next_attempt_at, created_at) VALUES (?, ?, ?, ?)
                """)
            for id in subscriptionIds { try insert.execute(arguments: [id, payload, now, now]) }
        }
    }

    /// Pushes due now, oldest first.
    func due(limit: Int = 50) throws -> [Due] {
        let now = Timestamps.database(clock.now())
        return try database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT push_queue.id, push_queue.subscription_id, push_queue.payload, push_queue.attempts,
                       push_subscriptions.endpoint, push_subscriptions.p256dh, push_subscriptions.auth
                FROM push_queue JOIN push_subscriptions ON push_subscriptions.id = push_queue.subscription_id
                WHERE push_queue.next_attempt_at <= ? ORDER BY push_queue.next_attempt_at, push_queue.id LIMIT ?
                """, arguments: [now, limit]).map { row in
                Due(id: row[0], subscriptionId: row[1],
                    subscription: Subscription(endpoint: row[4], p256dh: row[5], auth: row[6]), payload: row[2], attempts: row[3])
            }
        }
    }

    /// When the next waiting push is due, if any waits.
    func nextDue() throws -> Date? {
        try database.read { db in
            try Date.fetchOne(db, sql: "SELECT MIN(next_attempt_at) FROM push_queue")
        }
    }

    /// The push service took it, or will never: it leaves the queue.
    func finish(_ id: Int64) async throws {
        try await database.writer.write { db in
            try db.execute(sql: "DELETE FROM push_queue WHERE id = ?", arguments: [id])
        }
    }

    /// Tries it again at `at`.
    func retry(_ id: Int64, at: Date) async throws {
        try await database.writer.write { db in
            try db.execute(sql: "UPDATE push_queue SET attempts = attempts + 1, next_attempt_at = ? WHERE id = ?",
                           arguments: [Timestamps.database(at), id])
        }
    }

    /// The push service says the subscription is gone (404, 410): it goes, with its queue.
    func drop(subscriptionId: Int64) async throws {
        try await database.writer.write { db in
            try db.execute(sql: "DELETE FROM push_subscriptions WHERE id = ?", arguments: [subscriptionId])
        }
    }
}
