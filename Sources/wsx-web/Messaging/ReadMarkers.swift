import GRDB

/// A person's place in one room: how many messages they have not read, and the newest they have.
struct RoomMarker: Sendable, Equatable {
    let unread: Int
    let lastRead: Int64
}

/// Each person's markers in the rooms of a workspace, as last read, kept until a commit changes
/// `room_members` (every post moves the others' counts, every read the reader's marker). The
/// sidebar's badges and a room page's unread line come from here.
struct ReadMarkers: Sendable {
    let kept: VersionedCache<Key, [Int64: RoomMarker]>

    struct Key: Hashable, Sendable {
        let userId: Int64, workspaceId: Int64
    }

    init(database: AppDatabase, clock: WallClock) {
        kept = VersionedCache(version: database.readMarkersVersion, clock: clock, capacity: 4096)
    }

    /// `userId`'s markers by room, from memory, or else read in `db` (nil: memory only).
    func markers(_ db: Database?, userId: Int64, workspaceId: Int64) throws -> [Int64: RoomMarker] {
        try kept.value(for: Key(userId: userId, workspaceId: workspaceId), in: db) { db in
            try Self.read(db, userId: userId, workspaceId: workspaceId)
        }
    }

    /// The same, read in `db`.
    static func read(_ db: Database, userId: Int64, workspaceId: Int64) throws -> [Int64: RoomMarker] {
        let rows = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT room_members.room_id, room_members.unread_count, room_members.last_read_message_id
            FROM room_members JOIN rooms ON rooms.id = room_members.room_id
            WHERE room_members.user_id = ? AND rooms.workspace_id = ?
            """), arguments: [userId, workspaceId])
        // Read by position: GRDB looks names up case-insensitively, lowercasing each.
        return Dictionary(uniqueKeysWithValues: rows.map { ($0[0], RoomMarker(unread: $0[1], lastRead: $0[2])) })
    }
}
