import Foundation

/// Reads and prunes the `events` outbox: replay for reconnecting clients, retention.
struct EventLog: Sendable {
    let database: AppDatabase
    let clock: WallClock

    /// One stored event as replay sends it.
    struct Row: Sendable, Decodable {
        let id: Int64
        let type: String
        let payload: String
    }

    /// The newest event id, 0 when there is none yet.
    func latestId() throws -> Int64 {
        try database.query { tx in try tx.events.latestId() }
    }

    /// Events up to this id were deleted by retention; a client resuming before it must reload.
    func prunedThrough() throws -> Int64 {
        try database.query { tx in try tx.events.prunedThrough() }
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
        try database.query { tx in
            try tx.events.replay(after: after, through: through, userId: userId, rooms: rooms, limit: limit, maxBytes: maxBytes)
        }
    }

    /// Deletes events older than `retention` seconds and remembers the newest id deleted.
    @discardableResult
    func prune(olderThan retention: TimeInterval) async throws -> Int {
        let cutoff = clock.now().addingTimeInterval(-retention)
        return try await database.write { tx in try tx.events.prune(before: cutoff) }
    }
}
