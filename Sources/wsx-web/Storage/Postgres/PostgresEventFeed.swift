import Foundation
import Logging
import NIOCore
import PostgresNIO
import Synchronization

/// One stored event as a node's feed reads it from `events`.
struct PostgresStoredEvent: Sendable, Equatable {
    let id: Int64
    let type: String
    let roomId: Int64?
    let userId: Int64?
    let payload: String
    let messageId: Int64?
    /// What the hub applies beside delivering it (`event_delivery`).
    var membership: MembershipChange?
    var closesSessions: [Int64] = []

    /// The event as the hub takes it, as its writer published it.
    var committed: CommittedEvent {
        let audience: Audience = if let roomId { .room(roomId) } else { .user(userId ?? 0) }
        var event = OutgoingEvent(EventType(rawValue: type), to: audience, json: payload, membership: membership,
                                  closesSessions: closesSessions)
        event.messageId = messageId
        return CommittedEvent(id: id, event: event)
    }
}

/// Every event any node commits, delivered to this node in id order, each once.
///
/// A listening connection waits for `NOTIFY` on the events channel; on each, and whenever it
/// (re)connects, it reads the events after the last one it delivered, in pages, and yields them.
/// Ids are handed out in commit order (`PostgresEventIds`), so a read that sees id n sees every
/// id below it: nothing is stepped over. A connection that drops is opened again after a short
/// pause, and what was committed meanwhile is read from the table, so a node that lost its
/// listener misses nothing and delivers nothing twice.
final class PostgresEventFeed: Sendable {
    /// Each read's events, never empty, in id order.
    let events: AsyncStream<[PostgresStoredEvent]>
    private let continuation: AsyncStream<[PostgresStoredEvent]>.Continuation
    private let connector: PostgresConnector
    private let channel: String
    private let delivered: Atomic<Int64>
    private let task = Mutex<Task<Void, Never>?>(nil)
    /// The listening connection now, closed by `stop()` (cancelling the task does not end a
    /// `LISTEN` waiting for its next notice).
    private let listening = Mutex<PostgresConnection?>(nil)
    /// Told of every other node's notice (it committed: the tables it changed) and every
    /// (re)connect (nil: anything may have changed meanwhile), before the events after it are
    /// read: the node's caches count it as a change.
    private let noticed = Mutex<(@Sendable (Set<String>?) -> Void)?>(nil)
    /// What this node's own notices begin with (`notice(changing:from:)`): its caches counted
    /// those commits as they returned, so a notice arriving later is no news to them.
    let origin: String
    /// How many times the listening connection was opened (for tests and logs).
    private let connections = Atomic<Int>(0)
    /// What the listening connection is called in `pg_stat_activity`.
    static let applicationName = "wsx-web event feed"
    /// Events one read takes at most.
    static let pageSize = 500

    init(connector: PostgresConnector, channel: String, after lastId: Int64, origin: String = PostgresEventFeed.newOrigin()) {
        (events, continuation) = AsyncStream.makeStream(of: [PostgresStoredEvent].self, bufferingPolicy: .unbounded)
        (self.connector, self.channel, self.origin) = (connector, channel, origin)
        delivered = Atomic(lastId)
    }

    /// The id of the newest event delivered.
    var lastDelivered: Int64 { delivered.load(ordering: .acquiring) }

    /// How many listening connections were opened so far.
    var connectionCount: Int { connections.load(ordering: .relaxed) }

    /// Calls `action` on every other node's notice, with the tables the commit changed, and every
    /// (re)connect, with nil (anything may have changed), before reading what was committed.
    func onNotice(_ action: @escaping @Sendable (Set<String>?) -> Void) {
        noticed.withLock { $0 = action }
    }

    /// A node's mark on its notices: random, so two nodes (or two runs of one) never share it.
    static func newOrigin() -> String {
        String(UInt64.random(in: .min ... .max), radix: 36)
    }

    /// A notice's payload for a commit by the node marked `origin` that changed `tables` (nil:
    /// anything): the mark, a `;`, then the tables' names sorted and separated by commas, or `*`.
    /// Well under `NOTIFY`'s 8,000 bytes: the schema has about fifty tables.
    static func notice(changing tables: Set<String>?, from origin: String) -> String {
        origin + ";" + (tables.map { $0.sorted().joined(separator: ",") } ?? "*")
    }

    /// Who sent a notice and what it says was changed (nil: anything).
    static func changes(in payload: String) -> (origin: Substring, tables: Set<String>?) {
        let (origin, tables) = payload.firstIndex(of: ";").map { (payload[..<$0], payload[payload.index(after: $0)...]) }
            ?? ("", payload[...])
        return (origin, tables == "*" ? nil : Set(tables.split(separator: ",").map(String.init)))
    }

    /// Starts listening (once); runs until `stop()`.
    func start() {
        task.withLock { task in
            guard task == nil else { return }
            task = Task { [self] in await listen() }
        }
    }

    /// Stops listening and ends `events`.
    func stop() {
        task.withLock { $0?.cancel() }
        if let connection = listening.withLock({ $0 }) { let closing: EventLoopFuture<Void> = connection.close(); _ = closing }
        continuation.finish()
    }

    private func listen() async {
        let logger = connector.logger
        while !Task.isCancelled {
            do {
                let connection = try await connector.connect(as: Self.applicationName)
                listening.withLock { $0 = connection }
                connections.add(1, ordering: .relaxed)
                if Task.isCancelled { try? await connection.close() }
                do {
                    try await connection.listen(on: channel) { notifications in
                        // Listening before reading: a commit between the two is read now or notified after.
                        noticed.withLock { $0 }?(nil)
                        try await catchUp(connection)
                        for try await notification in notifications {
                            let (sender, changed) = Self.changes(in: notification.payload)
                            if sender != origin { noticed.withLock { $0 }?(changed) }
                            try await catchUp(connection)
                        }
                    }
                } catch {
                    if !Task.isCancelled { logger.warning("event feed lost its connection; listening again", metadata: ["error": "\(String(reflecting: error))"]) }
                }
                try? await connection.close()
            } catch {
                logger.warning("event feed cannot connect; trying again", metadata: ["error": "\(error)"])
            }
            try? await Task.sleep(for: .milliseconds(200))
        }
    }

    /// Reads and yields every event after the last delivered, page by page.
    private func catchUp(_ connection: PostgresConnection) async throws {
        while true {
            let after = lastDelivered
            let rows = try await connection.query("""
                SELECT events.id, events.type, events.room_id, events.user_id, events.payload, events.message_id,
                       event_delivery.membership, event_delivery.closes_sessions
                FROM events LEFT JOIN event_delivery ON event_delivery.event_id = events.id
                WHERE events.id > \(after) ORDER BY events.id LIMIT \(Self.pageSize)
                """, logger: connector.logger).collect()
            let page = try rows.map { row in
                let (id, type, roomId, userId, payload, messageId, membership, sessions) =
                    try row.decode((Int64, String, Int64?, Int64?, String, Int64?, String?, String?).self)
                return PostgresStoredEvent(id: id, type: type, roomId: roomId, userId: userId, payload: payload, messageId: messageId,
                                           membership: membership.flatMap(MembershipChange.init(text:)),
                                           closesSessions: (sessions ?? "").split(separator: ",").compactMap { Int64($0) })
            }
            guard let last = page.last else { return }
            delivered.store(last.id, ordering: .releasing)
            continuation.yield(page)
            if page.count < Self.pageSize { return }
        }
    }
}
