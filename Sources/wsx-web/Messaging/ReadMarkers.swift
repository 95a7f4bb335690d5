import GRDB

/// A person's place in one room: how many messages they have not read, how many of those
/// mention them (by name or as @here/@channel), and the newest they have read.
struct RoomMarker: Sendable, Equatable {
    let unread: Int
    let lastRead: Int64
    var mentions = 0
}

/// Each person's markers in the rooms of a workspace, as last read, kept until a commit changes
/// `room_members` or `mentions` (every post moves the others' counts, every read the reader's
/// marker, an edit may mention someone). The sidebar's badges and a room page's unread line
/// come from here.
struct ReadMarkers: Sendable {
    let kept: VersionedCache<Key, [Int64: RoomMarker]>

    struct Key: Hashable, Sendable {
        let userId: Int64, workspaceId: Int64
    }

    init(database: AppDatabase, clock: WallClock) {
        kept = VersionedCache("read markers", of: database, clock: clock, capacity: 4096)
    }

    /// `userId`'s markers by room, from memory, or else read in `db` (nil: memory only).
    func markers(_ db: Database?, userId: Int64, workspaceId: Int64) throws -> [Int64: RoomMarker] {
        try kept.value(for: Key(userId: userId, workspaceId: workspaceId), in: db) { db in
            try Self.read(db, userId: userId, workspaceId: workspaceId)
        }
    }

    /// The same, read in `db`.
    static func read(_ db: Database, userId: Int64, workspaceId: Int64) throws -> [Int64: RoomMarker] {
        let rows = try Row.fetchAll(db.cachedStatement(sql: columns + """
            FROM room_members JOIN rooms ON rooms.id = room_members.room_id
            WHERE room_members.user_id = ? AND rooms.workspace_id = ?
            """), arguments: [userId, workspaceId])
        return Dictionary(uniqueKeysWithValues: rows.map { ($0[0], marker($0)) })
    }

    /// `userId`'s marker in one room (a read moving it tells their tabs), read in `db`.
    static func read(_ db: Database, userId: Int64, roomId: Int64) throws -> RoomMarker? {
        try Row.fetchOne(db.cachedStatement(sql: columns + "FROM room_members WHERE user_id = ? AND room_id = ?"),
                         arguments: [userId, roomId]).map(marker)
    }

    /// Room, unread count, marker, and the mentions after the marker: a range of the person's
    /// own mentions (their primary key) per room, so the count costs the unread mentions, not
    /// every mention ever.
    private static let columns = """
        SELECT room_members.room_id, room_members.unread_count, room_members.last_read_message_id,
               CASE WHEN room_members.unread_count = 0 THEN 0 ELSE
                 (SELECT COUNT(*) FROM mentions JOIN messages ON messages.id = mentions.message_id
                  WHERE mentions.user_id = room_members.user_id AND mentions.message_id > room_members.last_read_message_id
                    AND messages.room_id = room_members.room_id AND messages.in_timeline = 1
                    AND messages.deleted_at IS NULL) END

        """

    // Read by position: GRDB looks names up case-insensitively, lowercasing each.
    private static func marker(_ row: Row) -> RoomMarker {
        RoomMarker(unread: row[1], lastRead: row[2], mentions: row[3])
    }
}
