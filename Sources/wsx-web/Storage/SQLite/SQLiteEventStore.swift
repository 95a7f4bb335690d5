import Foundation
import GRDB

extension EventLog.Row: FetchableRecord {}

/// `EventStore` on SQLite: the `events` table, its id counter (`sqlite_sequence`) and
/// `event_retention`; scrubbing is `MessageEventScrub`.
struct SQLiteEventStore: EventStore {
    let db: Database

    func latestId() throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'events'") ?? 0
    }

    func latestIdAsStamp() throws -> Int64 {
        guard let trace = StatementTrace.current, trace.connection == db.sqliteConnection else { return try latestId() }
        return try trace.unrecorded { try latestId() }
    }

    func prunedThrough() throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT pruned_through FROM event_retention WHERE id = 1") ?? 0
    }

    func replay(after: Int64, through: Int64, userId: Int64, rooms: [Int64], limit: Int, maxBytes: Int) throws -> [EventLog.Row] {
        var sql = "SELECT id, type, payload FROM events WHERE id > ? AND id <= ? AND (user_id = ?"
        var arguments: StatementArguments = [after, through, userId]
        if !rooms.isEmpty {
            // Which rooms is the hub's call (its membership at subscription); the floor, where
            // the database has one, is when they joined.
            sql += " OR (room_id IN (\(databaseQuestionMarks(count: rooms.count))) AND id > COALESCE("
                + "(SELECT joined_after_event FROM room_members WHERE room_members.room_id = events.room_id AND room_members.user_id = ?), 0))"
            arguments += StatementArguments(rooms) + [userId]
        }
        sql += ") ORDER BY id LIMIT \(limit)"
        var rows: [EventLog.Row] = []
        var bytes = 0
        let cursor = try EventLog.Row.fetchCursor(db, sql: sql, arguments: arguments)
        while bytes < maxBytes, let row = try cursor.next() {
            bytes += row.payload.utf8.count
            rows.append(row)
        }
        return rows
    }

    func prune(before cutoff: Date) throws -> Int {
        guard let newest = try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM events WHERE created_at < ?", arguments: [cutoff])
        else { return 0 }
        try db.execute(sql: "DELETE FROM events WHERE id <= ?", arguments: [newest])
        try db.execute(sql: "UPDATE event_retention SET pruned_through = MAX(pruned_through, ?) WHERE id = 1", arguments: [newest])
        return db.changesCount
    }

    func scrubEdited(messageId: Int64, html: String, snippet: String) throws {
        try MessageEventScrub.edited(db, messageId: messageId, html: html, snippet: snippet)
    }

    func scrubPlaceholder(messageId: Int64, html: String) throws {
        try MessageEventScrub.placeholder(db, messageId: messageId, html: html)
    }

    func scrubDeleted(messageId: Int64) throws {
        try MessageEventScrub.deleted(db, messageId: messageId)
    }

    func scrubRoomsDeleted(_ roomIds: [Int64]) throws {
        try MessageEventScrub.roomsDeleted(db, rooms: roomIds)
    }
}

extension EventLog {
    /// The newest event id, read in `db` (code still holding a connection).
    func latestId(_ db: Database) throws -> Int64 {
        try SQLiteEventStore(db: db).latestId()
    }
}
