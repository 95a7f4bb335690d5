import Foundation
import PostgresNIO

/// `EventStore` on PostgreSQL: the `events` table, its id counter (`event_counter`, see
/// `PostgresEventIds`) and `event_retention`. Payloads are kept as their writers wrote them;
/// scrubbing rewrites one through `jsonb_set`.
struct PostgresEventStore: EventStore {
    let session: PostgresSession

    func latestId() throws -> Int64 {
        try session.run("SELECT last_id FROM event_counter").first?.decode(Int64.self) ?? 0
    }

    func latestIdAsStamp() throws -> Int64 {
        try ReadScope.$current.withValue(nil) { try latestId() }
    }

    func prunedThrough() throws -> Int64 {
        try session.run("SELECT pruned_through FROM event_retention WHERE id = 1").first?.decode(Int64.self) ?? 0
    }

    func replay(after: Int64, through: Int64, userId: Int64, rooms: [Int64], limit: Int, maxBytes: Int) throws -> [EventLog.Row] {
        // Which rooms is the hub's call (its membership at subscription); the floor is when the
        // person joined each.
        let rows = try session.run("""
            SELECT id, type, payload FROM events
            WHERE id > \(after) AND id <= \(through) AND (user_id = \(userId)
                OR (room_id = ANY(\(rooms)) AND id > COALESCE(
                    (SELECT joined_after_event FROM room_members
                     WHERE room_members.room_id = events.room_id AND room_members.user_id = \(userId)), 0)))
            ORDER BY id LIMIT \(limit)
            """)
        var replayed: [EventLog.Row] = []
        var bytes = 0
        for row in rows {
            guard bytes < maxBytes else { break }
            let (id, type, payload) = try row.decode((Int64, String, String).self)
            bytes += payload.utf8.count
            replayed.append(EventLog.Row(id: id, type: type, payload: payload))
        }
        return replayed
    }

    func prune(before cutoff: Date) throws -> Int {
        guard let newest = try session.run("SELECT MAX(id) FROM events WHERE created_at < \(cutoff)").first?.decode(Int64?.self)
        else { return 0 }
        try session.run("DELETE FROM events WHERE id <= \(newest)")
        return try session.run("""
            UPDATE event_retention SET pruned_through = GREATEST(pruned_through, \(newest)) WHERE id = 1 RETURNING id
            """).count
    }

    func scrubEdited(messageId: Int64, html: String, snippet: String) throws {
        try session.run("""
            UPDATE events SET payload = jsonb_set(jsonb_set(payload::jsonb, '{html}', to_jsonb(\(html)::text)), '{snippet}', to_jsonb(\(snippet)::text))::text
            WHERE message_id = \(messageId) AND type = \(EventType.messageCreated.rawValue)
            """)
        try session.run("DELETE FROM events WHERE message_id = \(messageId) AND type = \(EventType.messageUpdated.rawValue)")
    }

    func scrubPlaceholder(messageId: Int64, html: String) throws {
        try scrubEdited(messageId: messageId, html: html, snippet: "")
        try session.run("DELETE FROM events WHERE message_id = \(messageId) AND type = \(EventType.messagePreview.rawValue)")
    }

    func scrubDeleted(messageId: Int64) throws {
        try session.run("DELETE FROM events WHERE message_id = \(messageId) AND type = ANY(\(MessageEventScrub.messageTypes))")
    }

    func scrubRoomsDeleted(_ roomIds: [Int64]) throws {
        guard !roomIds.isEmpty else { return }
        try session.run("DELETE FROM events WHERE room_id = ANY(\(roomIds)) AND type = ANY(\(MessageEventScrub.messageTypes))")
    }
}
