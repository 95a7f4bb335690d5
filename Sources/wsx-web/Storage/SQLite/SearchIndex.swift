import Foundation
import GRDB

/// The full-text index of messages: an FTS5 table of our own tokens (see `SearchTokenizer`),
/// keyed by message id, with each message's room as a token so searches intersect with the
/// rooms a person is in. Written in the same transaction as the message; a trigger removes a
/// message's row whenever the message goes (also by cascade when its room or workspace goes).
enum SearchIndex {
    static func scopeToken(room: Int64) -> String { "r\(room)" }

    /// Indexes (or re-indexes) a message.
    static func index(_ db: Database, messageId: Int64, roomId: Int64, text: String) throws {
        let document = SearchTokenizer.document(text)
        // Cached statements: this runs inside every post's transaction.
        try db.cachedStatement(sql: "DELETE FROM message_index WHERE rowid = ?").execute(arguments: [messageId])
        try db.cachedStatement(sql: "INSERT INTO message_index (rowid, words, uni, bi, scope) VALUES (?, ?, ?, ?, ?)").execute(arguments: [
            messageId, document.words.joined(separator: " "), document.unigrams.joined(separator: " "),
            document.bigrams.joined(separator: " "), scopeToken(room: roomId),
        ])
    }

    /// The migration's part: the table, the deletion trigger, and every existing message.
    static func create(_ db: Database) throws {
        try db.execute(sql: """
            CREATE VIRTUAL TABLE message_index USING fts5(words, uni, bi, scope, tokenize = 'unicode61 remove_diacritics 0');
            CREATE TRIGGER message_index_delete AFTER DELETE ON messages BEGIN
                DELETE FROM message_index WHERE rowid = old.id;
            END;
            """)
        let rows = try Row.fetchCursor(db, sql: "SELECT id, room_id, body FROM messages")
        while let row = try rows.next() {
            try index(db, messageId: row["id"], roomId: row["room_id"], text: row["body"])
        }
    }
}
