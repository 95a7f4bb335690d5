import Foundation
import GRDB
import Views

/// `ReadMarkStore` on SQLite: the markers are columns of `room_members` (kept up to date by
/// triggers), the thread counts are `ThreadRecords`' reads.
struct SQLiteReadMarkStore: ReadMarkStore {
    let db: Database

    func markers(userId: Int64, workspaceId: Int64) throws -> [Int64: RoomMarker] {
        let rows = try Row.fetchAll(db.cachedStatement(sql: Self.columns + """
            FROM room_members JOIN rooms ON rooms.id = room_members.room_id
            WHERE room_members.user_id = ? AND rooms.workspace_id = ?
            """), arguments: [userId, workspaceId])
        return Dictionary(uniqueKeysWithValues: rows.map { ($0[0], Self.marker($0)) })
    }

    func marker(userId: Int64, roomId: Int64) throws -> RoomMarker? {
        try Row.fetchOne(db.cachedStatement(sql: Self.columns + "FROM room_members WHERE user_id = ? AND room_id = ?"),
                         arguments: [userId, roomId]).map(Self.marker)
    }

    func receipts(roomId: Int64) throws -> ReceiptMarkers {
        let rows = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT user_id, last_read_message_id FROM room_members WHERE room_id = ? ORDER BY user_id
            """), arguments: [roomId])
        return ReceiptMarkers(members: rows.map { ReceiptMarkers.Member(userId: $0[0], lastRead: $0[1]) })
    }

    func threadUnread(userId: Int64, workspaceId: Int64) throws -> ThreadUnread {
        ThreadUnread(replies: try ThreadRecords.unreadTotal(db, userId: userId, workspaceId: workspaceId),
                     mentions: try ThreadRecords.unreadMentions(db, userId: userId, workspaceId: workspaceId))
    }

    func markAllRead(roomId: Int64) throws {
        try db.execute(sql: """
            UPDATE room_members SET unread_count = 0,
                last_read_message_id = max(last_read_message_id, COALESCE((SELECT MAX(id) FROM messages WHERE room_id = ?), 0))
            WHERE room_id = ?
            """, arguments: [roomId, roomId])
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

/// `NotifySettingStore` on SQLite: `room_members.notify_level` and `users.notify_default`.
struct SQLiteNotifySettingStore: NotifySettingStore {
    let db: Database

    func setLevel(_ level: NotifyLevel?, roomId: Int64, userId: Int64) throws -> Bool {
        try db.execute(sql: "UPDATE room_members SET notify_level = ? WHERE room_id = ? AND user_id = ?",
                       arguments: [level?.rawValue, roomId, userId])
        return db.changesCount == 1
    }

    func defaultLevel(userId: Int64) throws -> String? {
        try String.fetchOne(db, sql: "SELECT notify_default FROM users WHERE id = ?", arguments: [userId])
    }

    func setDefault(_ level: NotifyLevel, userId: Int64) throws {
        try db.execute(sql: "UPDATE users SET notify_default = ? WHERE id = ?", arguments: [level.rawValue, userId])
    }
}

/// `LastRoomStore` on SQLite: one row of `last_rooms` per person.
struct SQLiteLastRoomStore: LastRoomStore {
    let db: Database

    func setViewed(roomId: Int64, userId: Int64) throws {
        try db.cachedStatement(sql: "INSERT INTO last_rooms (user_id, room_id) VALUES (?, ?) ON CONFLICT (user_id) DO UPDATE SET room_id = excluded.room_id")
            .execute(arguments: [userId, roomId])
    }

    func lastViewed(userId: Int64) throws -> Room? {
        try Row.fetchOne(db, sql: """
            SELECT rooms.* FROM last_rooms
            JOIN rooms ON rooms.id = last_rooms.room_id
            JOIN workspace_members ON workspace_members.workspace_id = rooms.workspace_id
                AND workspace_members.user_id = last_rooms.user_id
            WHERE last_rooms.user_id = ? AND (
                EXISTS (SELECT 1 FROM room_members WHERE room_members.room_id = rooms.id
                        AND room_members.user_id = last_rooms.user_id)
                OR (rooms.kind = 'channel' AND rooms.visibility = 'public'))
            """, arguments: [userId]).map { row in try Room(row: row) }
    }

    func firstDefaultRoom(userId: Int64) throws -> Room? {
        try Row.fetchOne(db, sql: """
            SELECT rooms.* FROM workspace_members
            JOIN rooms ON rooms.workspace_id = workspace_members.workspace_id AND rooms.is_default
            WHERE workspace_members.user_id = ?
            ORDER BY workspace_members.joined_at, workspace_members.workspace_id LIMIT 1
            """, arguments: [userId]).map { row in try Room(row: row) }
    }
}

// The cached reads as code still holding a GRDB connection asks them (`RoomPageReader`,
// `SidebarSource`, `WorkspaceHomeReader`, `MessageService`), until it holds a `StoreTransaction`.

extension ReadMarkers {
    /// `markers(_:userId:workspaceId:)` in `db` (nil: memory only).
    func markers(_ db: Database?, userId: Int64, workspaceId: Int64) throws -> [Int64: RoomMarker] {
        try markers(db.map(SQLiteTransaction.reading), userId: userId, workspaceId: workspaceId)
    }

    /// The person's markers by room, read in `db`.
    static func read(_ db: Database, userId: Int64, workspaceId: Int64) throws -> [Int64: RoomMarker] {
        try SQLiteReadMarkStore(db: db).markers(userId: userId, workspaceId: workspaceId)
    }

    /// The person's marker in one room, read in `db`.
    static func read(_ db: Database, userId: Int64, roomId: Int64) throws -> RoomMarker? {
        try SQLiteReadMarkStore(db: db).marker(userId: userId, roomId: roomId)
    }
}

extension ReadReceipts {
    /// `markers(_:roomId:)` in `db` (nil: memory only).
    func markers(_ db: Database?, roomId: Int64) throws -> ReceiptMarkers {
        try markers(db.map(SQLiteTransaction.reading), roomId: roomId)
    }
}
