import Foundation
import PostgresNIO

/// Event ids on PostgreSQL, handed out in commit order.
///
/// A sequence hands ids out in the order transactions ask, not the order they commit: A takes 10,
/// B takes 11 and commits first, a node delivers 11, and a replay "after 11" never sends 10. So a
/// writer takes its id from the one row of `event_counter` inside its transaction: the row stays
/// locked until that transaction ends, the next writer's `UPDATE` waits for it, and ids become
/// visible in the order they were handed out, with no gap a reader could step over. Writers that
/// publish events are serialised on that row from their first event to their commit (SQLite's
/// single writer was, for the whole transaction). READ COMMITTED, PostgreSQL's default, lets the
/// waiting `UPDATE` see the committed value.
enum PostgresEventIds {
    /// The next event id, taken inside the caller's open transaction.
    static func next(in session: PostgresSession) throws -> Int64 {
        guard let row = try session.run("UPDATE event_counter SET last_id = last_id + 1 RETURNING last_id").first else {
            throw PostgresSchema.Refusal(description: "event_counter has no row: the database was not migrated by wsx")
        }
        return try row.decode(Int64.self)
    }

    /// Records `event` in the caller's open transaction under the next id, and answers the id.
    static func record(_ event: OutgoingEvent, in session: PostgresSession, at now: Date) throws -> Int64 {
        let id = try next(in: session)
        let (roomId, userId) = event.audience.columns
        try session.run("""
            INSERT INTO events (id, type, room_id, user_id, payload, created_at, message_id)
            VALUES (\(id), \(event.type.rawValue), \(roomId), \(userId), \(event.payload), \(now), \(event.messageId))
            """)
        if event.membership != nil || !event.closesSessions.isEmpty {
            let sessions = event.closesSessions.isEmpty ? nil : event.closesSessions.map(String.init).joined(separator: ",")
            try session.run("""
                INSERT INTO event_delivery (event_id, membership, closes_sessions) VALUES (\(id), \(event.membership?.text), \(sessions))
                """)
        }
        return id
    }
}
