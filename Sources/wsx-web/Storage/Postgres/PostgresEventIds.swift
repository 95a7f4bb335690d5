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
    /// The id is taken and the event written in one statement: one round trip less per event,
    /// and one less while the counter's row is held (every writer with events waits for it).
    static func record(_ event: OutgoingEvent, in session: PostgresSession, at now: Date) throws -> Int64 {
        let (roomId, userId) = event.audience.columns
        guard let row = try session.run("""
            WITH taken AS (UPDATE event_counter SET last_id = last_id + 1 RETURNING last_id)
            INSERT INTO events (id, type, room_id, user_id, payload, created_at, message_id)
            SELECT last_id, \(event.type.rawValue), \(roomId), \(userId), \(event.payload), \(now), \(event.messageId) FROM taken
            RETURNING id
            """).first else {
            throw PostgresSchema.Refusal(description: "event_counter has no row: the database was not migrated by wsx")
        }
        let id = try row.decode(Int64.self)
        if event.membership != nil || !event.closesSessions.isEmpty {
            let sessions = event.closesSessions.isEmpty ? nil : event.closesSessions.map(String.init).joined(separator: ",")
            try session.run("""
                INSERT INTO event_delivery (event_id, membership, closes_sessions) VALUES (\(id), \(event.membership?.text), \(sessions))
                """)
        }
        return id
    }
}
