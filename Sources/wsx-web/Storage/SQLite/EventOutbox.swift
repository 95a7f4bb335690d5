import Foundation
import GRDB
import Synchronization

/// The one way to publish a real-time event: `publish(_:in:)` writes the event into the `events`
/// table inside the caller's write transaction, so the event exists if and only if the change it
/// describes committed.
///
/// After the transaction commits, its events are handed to `committed` together, in id order, and
/// the hub consumes them. Commits are serialized by the single SQLite writer, so id order is
/// commit order.
/// A savepoint that rolls back while its transaction goes on must drop the events published in
/// it (`pendingCount` before, `discardPending(after:)` on rollback), as `GroupCommit` does.
///
/// In a command run beside the server (`Destination.runningServer`), there is no hub: events
/// are queued in the same transaction for the server to relay (`OutsideEvents`).
final class EventOutbox: Sendable {
    /// Who takes the events this process publishes.
    enum Destination: Sendable {
        /// This process's hub (the server, and tests).
        case hub
        /// The server running on the same data folder, when it is told (`OutsideWrites`), or
        /// the next one to start.
        case runningServer
    }

    let destination: Destination
    /// The events of each committed transaction (never empty), in id order. Unbounded: the hub
    /// drains it as fast as commits happen.
    let committed: AsyncStream<[CommittedEvent]>
    private let continuation: AsyncStream<[CommittedEvent]>.Continuation
    private let clock: WallClock
    /// Events of the transaction in progress; touched only on the writer's queue.
    private let pending = Mutex<[CommittedEvent]>([])
    /// Other followers of the committed events (`listen()`).
    private let listeners = Mutex<[AsyncStream<[CommittedEvent]>.Continuation]>([])

    init(clock: WallClock, destination: Destination = .hub) {
        (committed, continuation) = AsyncStream.makeStream(of: [CommittedEvent].self, bufferingPolicy: .unbounded)
        self.clock = clock
        self.destination = destination
    }

    /// Records `event` in the current transaction and returns its id (in a command, its place
    /// in the queue for the server).
    @discardableResult
    func publish(_ event: OutgoingEvent, in db: Database) throws -> Int64 {
        if destination == .runningServer {
            return try OutsideEvents.queue(event, in: db, at: clock.now())
        }
        let (roomId, userId) = event.audience.columns
        try db.cachedStatement(sql: "INSERT INTO events (type, room_id, user_id, payload, created_at, message_id) VALUES (?, ?, ?, ?, ?, ?)")
            .execute(arguments: [event.type.rawValue, roomId, userId, event.payload, Timestamps.database(clock.now()),
                                 event.messageId])
        let id = db.lastInsertedRowID
        let isFirst = pending.withLock { list in
            list.append(CommittedEvent(id: id, event: event))
            return list.count == 1
        }
        if isFirst {
            db.afterNextTransaction(onCommit: { [self] _ in
                deliver(pending.withLock { list in defer { list.removeAll() }; return list })
            }, onRollback: { [self] _ in
                pending.withLock { $0.removeAll() }
            })
        }
        return id
    }

    /// Hands on events committed elsewhere (on PostgreSQL, every node's, as the feed reads them),
    /// in id order, as this outbox hands on its own commits'.
    func deliver(_ events: [CommittedEvent]) {
        guard !events.isEmpty else { return }
        continuation.yield(events)
        for listener in listeners.withLock({ $0 }) { listener.yield(events) }
    }

    /// How many events the transaction in progress has published so far.
    var pendingCount: Int { pending.withLock { $0.count } }

    /// Forgets the events published after the first `count` (their savepoint rolled back).
    func discardPending(after count: Int) {
        pending.withLock { list in
            if list.count > count { list.removeSubrange(count...) }
        }
    }

    /// Another follower of the committed events (Web Push): each transaction's events, as the
    /// hub gets them, from when it listens. Unbounded, like `committed`: its reader keeps up.
    func listen() -> AsyncStream<[CommittedEvent]> {
        let (stream, listener) = AsyncStream.makeStream(of: [CommittedEvent].self, bufferingPolicy: .unbounded)
        listeners.withLock { $0.append(listener) }
        return stream
    }

    /// Ends the streams (the app is shutting down).
    func finish() {
        continuation.finish()
        for listener in listeners.withLock({ $0 }) { listener.finish() }
    }
}
