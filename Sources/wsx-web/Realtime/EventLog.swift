import Foundation
import GRDB

/// Reads and prunes the `events` outbox: replay for reconnecting clients, retention.
struct EventLog: Sendable {
    let database: AppDatabase
    let clock: WallClock

    /// One stored event as replay sends it.
    struct Row: Sendable, FetchableRecord, Decodable {
        let id: Int64
        let type: String
        let payload: String
    }

    /// The newest event id, 0 when there is none yet.
    func latestId(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'events'") ?? 0
    }

    /// Events up to this id were deleted by retention; a client resuming before it must reload.
    func prunedThrough(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT pruned_through FROM event_retention WHERE id = 1") ?? 0
    }

    /// Payload bytes one page of replay holds at most (past the first row): a page of 500 rows
    /// of large events was half a gigabyte read in one go.
    static let replayPageBytes = 256 * 1024

    /// The events with `after < id <= through` addressed to `userId` or to one of `rooms`, in id
    /// order, at most `limit` of them and about `maxBytes` of payload (always at least one). A
    /// room's events count only from when the user joined it (`room_members.joined_after_event`):
    /// someone who joins a channel does not replay what was said before, which the page shows
    /// them only as it reads now.
    func replay(after: Int64, through: Int64, userId: Int64, rooms: [Int64], limit: Int = 500,
                maxBytes: Int = EventLog.replayPageBytes) throws -> [Row] {
        try database.read { db in
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
            var rows: [Row] = []
            var bytes = 0
            let cursor = try Row.fetchCursor(db, sql: sql, arguments: arguments)
            while bytes < maxBytes, let row = try cursor.next() {
                bytes += row.payload.utf8.count
                rows.append(row)
            }
            return rows
        }
    }

    /// Deletes events older than `retention` seconds and remembers the newest id deleted.
    @discardableResult
    func prune(olderThan retention: TimeInterval) async throws -> Int {
        let cutoff = clock.now().addingTimeInterval(-retention)
        return try await database.writer.write { db in
            guard let newest = try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM events WHERE created_at < ?",
                                                  arguments: [cutoff]) else { return 0 }
            try db.execute(sql: "DELETE FROM events WHERE id <= ?", arguments: [newest])
            try db.execute(sql: "UPDATE event_retention SET pruned_through = MAX(pruned_through, ?) WHERE id = 1",
                           arguments: [newest])
            return db.changesCount
        }
    }
}
