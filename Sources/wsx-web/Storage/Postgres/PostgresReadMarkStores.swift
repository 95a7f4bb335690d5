import Foundation
import PostgresNIO
import Views

/// `ReadMarkStore` on PostgreSQL: the markers are columns of `room_members` (kept up to date by
/// triggers, as on SQLite), the thread counts come from `thread_follows`.
struct PostgresReadMarkStore: ReadMarkStore {
    let session: PostgresSession

    func markers(userId: Int64, workspaceId: Int64) throws -> [Int64: RoomMarker] {
        let rows = try session.run("""
            \(unescaped: Self.columns)
            FROM room_members JOIN rooms ON rooms.id = room_members.room_id
            WHERE room_members.user_id = \(userId) AND rooms.workspace_id = \(workspaceId)
            """)
        return Dictionary(uniqueKeysWithValues: try rows.map(Self.marker))
    }

    func marker(userId: Int64, roomId: Int64) throws -> RoomMarker? {
        try session.run("""
            \(unescaped: Self.columns) FROM room_members WHERE user_id = \(userId) AND room_id = \(roomId)
            """).first.map(Self.marker)?.1
    }

    func receipts(roomId: Int64) throws -> ReceiptMarkers {
        let rows = try session.run("SELECT user_id, last_read_message_id FROM room_members WHERE room_id = \(roomId) ORDER BY user_id")
        return ReceiptMarkers(members: try rows.map { row in
            let (userId, lastRead) = try row.decode((Int64, Int64).self)
            return ReceiptMarkers.Member(userId: userId, lastRead: lastRead)
        })
    }

    func threadUnread(userId: Int64, workspaceId: Int64) throws -> ThreadUnread {
        let replies = try session.run("""
            SELECT COALESCE(SUM(thread_follows.unread_count), 0)::BIGINT FROM thread_follows
            JOIN rooms ON rooms.id = thread_follows.room_id AND rooms.workspace_id = \(workspaceId) AND rooms.archived_at IS NULL
            JOIN room_members ON room_members.room_id = rooms.id AND room_members.user_id = thread_follows.user_id
            WHERE thread_follows.user_id = \(userId) AND thread_follows.unread_count > 0
            """)[0].decode(Int.self)
        let mentions = try session.run("""
            SELECT COUNT(*) FROM thread_follows
            JOIN rooms ON rooms.id = thread_follows.room_id AND rooms.workspace_id = \(workspaceId) AND rooms.archived_at IS NULL
            JOIN room_members ON room_members.room_id = rooms.id AND room_members.user_id = thread_follows.user_id
            JOIN mentions ON mentions.user_id = thread_follows.user_id AND mentions.message_id > thread_follows.last_read_id
            JOIN messages ON messages.id = mentions.message_id AND messages.thread_root_id = thread_follows.root_id
                AND NOT messages.in_timeline
            WHERE thread_follows.user_id = \(userId) AND thread_follows.unread_count > 0
            """)[0].decode(Int.self)
        return ThreadUnread(replies: replies, mentions: mentions)
    }

    func markAllRead(roomId: Int64) throws {
        try session.run("""
            UPDATE room_members SET unread_count = 0,
                last_read_message_id = GREATEST(last_read_message_id, COALESCE((SELECT MAX(id) FROM messages WHERE room_id = \(roomId)), 0))
            WHERE room_id = \(roomId)
            """)
    }

    /// Room, unread count, marker, and the unread messages that mention the person (counted only
    /// while something is unread).
    private static let columns = """
        SELECT room_members.room_id, room_members.unread_count, room_members.last_read_message_id,
               CASE WHEN room_members.unread_count = 0 THEN 0 ELSE
                 (SELECT COUNT(*) FROM mentions JOIN messages ON messages.id = mentions.message_id
                  WHERE mentions.user_id = room_members.user_id AND mentions.message_id > room_members.last_read_message_id
                    AND messages.room_id = room_members.room_id AND messages.in_timeline
                    AND messages.deleted_at IS NULL) END
        """

    private static func marker(_ row: PostgresRow) throws -> (Int64, RoomMarker) {
        let (roomId, unread, lastRead, mentions) = try row.decode((Int64, Int, Int64, Int).self)
        return (roomId, RoomMarker(unread: unread, lastRead: lastRead, mentions: mentions))
    }
}

/// `NotifySettingStore` on PostgreSQL: `room_members.notify_level` and `users.notify_default`.
struct PostgresNotifySettingStore: NotifySettingStore {
    let session: PostgresSession

    func setLevel(_ level: NotifyLevel?, roomId: Int64, userId: Int64) throws -> Bool {
        try session.run("""
            UPDATE room_members SET notify_level = \(level?.rawValue) WHERE room_id = \(roomId) AND user_id = \(userId) RETURNING room_id
            """).count == 1
    }

    func defaultLevel(userId: Int64) throws -> String? {
        try session.run("SELECT notify_default FROM users WHERE id = \(userId)").first?.decode(String.self)
    }

    func setDefault(_ level: NotifyLevel, userId: Int64) throws {
        try session.run("UPDATE users SET notify_default = \(level.rawValue) WHERE id = \(userId)")
    }
}

/// `LastRoomStore` on PostgreSQL: one row of `last_rooms` per person.
struct PostgresLastRoomStore: LastRoomStore {
    let session: PostgresSession

    func setViewed(roomId: Int64, userId: Int64) throws {
        try session.run("""
            INSERT INTO last_rooms (user_id, room_id) VALUES (\(userId), \(roomId))
            ON CONFLICT (user_id) DO UPDATE SET room_id = excluded.room_id
            """)
    }

    func lastViewed(userId: Int64) throws -> Room? {
        try session.run("""
            SELECT \(unescaped: Room.postgresColumns) FROM last_rooms
            JOIN rooms ON rooms.id = last_rooms.room_id
            JOIN workspace_members ON workspace_members.workspace_id = rooms.workspace_id
                AND workspace_members.user_id = last_rooms.user_id
            WHERE last_rooms.user_id = \(userId) AND (
                EXISTS (SELECT 1 FROM room_members WHERE room_members.room_id = rooms.id
                        AND room_members.user_id = last_rooms.user_id)
                OR (rooms.kind = 'channel' AND rooms.visibility = 'public'))
            """).first.map(Room.init(postgres:))
    }

    func firstDefaultRoom(userId: Int64) throws -> Room? {
        try session.run("""
            SELECT \(unescaped: Room.postgresColumns) FROM workspace_members
            JOIN rooms ON rooms.workspace_id = workspace_members.workspace_id AND rooms.is_default
            WHERE workspace_members.user_id = \(userId)
            ORDER BY workspace_members.joined_at, workspace_members.workspace_id LIMIT 1
            """).first.map(Room.init(postgres:))
    }
}
