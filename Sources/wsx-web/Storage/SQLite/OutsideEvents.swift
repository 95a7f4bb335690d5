import Foundation
import GRDB

/// Real-time events written by a command run beside the server (`wsx-web coins grant`).
///
/// The hub learns of events only from the commits of its own process (`EventOutbox`), so a
/// command queues its events in `outside_events`, in the transaction of the change they
/// describe, and the server relays them through its own outbox when the command tells it
/// (`OutsideWrites`) or when it next starts: one write transaction publishes them in their
/// order and empties the queue, so each is relayed once, with an id in the server's stream.
///
/// The sessions an event closes (`closesSessions`: a command deactivated someone) travel with it;
/// membership changes do not: the server rereads room memberships when told anyway.
enum OutsideEvents {
    /// Queues `event` in the current transaction; returns its place in the queue.
    static func queue(_ event: OutgoingEvent, in db: Database, at now: Date) throws -> Int64 {
        let (roomId, userId) = event.audience.columns
        try db.execute(sql: """
            INSERT INTO outside_events (type, room_id, user_id, payload, message_id, created_at, closes_sessions)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """, arguments: [event.type.rawValue, roomId, userId, event.payload, event.messageId, Timestamps.database(now),
                             event.closesSessions.map(String.init).joined(separator: ",")])
        return db.lastInsertedRowID
    }

    /// Publishes every queued event through `outbox` (the server's) and empties the queue, in
    /// the caller's write transaction; answers how many.
    @discardableResult
    static func relay(_ db: Database, through outbox: EventOutbox) throws -> Int {
        let rows = try Row.fetchAll(db, sql: "SELECT * FROM outside_events ORDER BY id")
        for row in rows {
            let audience: Audience = if let room: Int64 = row["room_id"] { .room(room) } else { .user(row["user_id"]) }
            var event = OutgoingEvent(EventType(rawValue: row["type"]), to: audience, json: row["payload"])
            event.messageId = row["message_id"]
            event.closesSessions = (row["closes_sessions"] as String? ?? "").split(separator: ",").compactMap { Int64($0) }
            try outbox.publish(event, in: db)
        }
        if let last: Int64 = rows.last?["id"] {
            try db.execute(sql: "DELETE FROM outside_events WHERE id <= ?", arguments: [last])
        }
        return rows.count
    }
}
