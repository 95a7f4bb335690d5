import Foundation
import GRDB

/// Takes a message's text out of the outbox once it may no longer be read as it was.
///
/// Replay (`Last-Event-ID`) serves stored events for the retention window (7 days): without
/// this, a reconnecting client could read the original HTML of a deleted message, or the text
/// before an edit. Runs in the transaction of the change, before its own event is published.
enum MessageEventScrub {
    /// The events that carry the message's own text.
    static let textTypes = [EventType.messageCreated.rawValue, EventType.messageUpdated.rawValue]
    /// Every event about one message that shows something of it (its text, its link's card).
    static let messageTypes = textTypes + [EventType.messagePreview.rawValue]

    /// The message was edited: its creation's event carries the new HTML and snippet instead (a
    /// client that replays it still gets the message, as it reads now), and its earlier edits'
    /// events go: the edit's own event, published next, supersedes them. Rewriting every
    /// earlier edit's event each time made edit N cost N rewrites (3,200 edits of one message
    /// took an edit from 16 to 180 ms, and a teammate's posts with it).
    static func edited(_ db: Database, messageId: Int64, html: String, snippet: String) throws {
        try db.execute(sql: """
            UPDATE events SET payload = json_set(payload, '$.html', ?, '$.snippet', ?)
            WHERE message_id = ? AND type = ?
            """, arguments: [html, snippet, messageId, EventType.messageCreated.rawValue])
        try db.execute(sql: "DELETE FROM events WHERE message_id = ? AND type = ?",
                       arguments: [messageId, EventType.messageUpdated.rawValue])
    }

    /// A thread's root was deleted and stays as a placeholder: its text events show the
    /// placeholder, and its card's events go.
    static func placeholder(_ db: Database, messageId: Int64, html: String) throws {
        try edited(db, messageId: messageId, html: html, snippet: "")
        try db.execute(sql: "DELETE FROM events WHERE message_id = ? AND type = ?",
                       arguments: [messageId, EventType.messagePreview.rawValue])
    }

    /// The message was deleted: its earlier events go (the deletion event tells clients that
    /// saw them).
    static func deleted(_ db: Database, messageId: Int64) throws {
        try db.execute(sql: "DELETE FROM events WHERE message_id = ? AND type IN (\(databaseQuestionMarks(count: messageTypes.count)))",
                       arguments: [messageId] + StatementArguments(messageTypes))
    }

    /// Rooms were deleted with their messages: so are the messages' events.
    static func roomsDeleted(_ db: Database, rooms: [Int64]) throws {
        guard !rooms.isEmpty else { return }
        try db.execute(sql: """
            DELETE FROM events WHERE room_id IN (\(databaseQuestionMarks(count: rooms.count))) AND type IN (\(databaseQuestionMarks(count: messageTypes.count)))
            """, arguments: StatementArguments(rooms) + StatementArguments(messageTypes))
    }
}
