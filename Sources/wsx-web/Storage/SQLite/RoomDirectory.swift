import Foundation
import GRDB
import Views

/// Reads the rooms a person is in within a workspace, with exact unread counts (messages after
/// their marker, not their own) and last messages when asked, for the sidebar and the workspace home.
enum RoomDirectory {
    static func rooms(_ db: Database, workspaceId: Int64, userId: Int64, reads: RoomSummaryReads) throws -> [RoomSummary] {
        let lastMessages = reads == .lastMessages
        // A post moves every other member's count: a list read without them keeps no dependency on it.
        let unreadColumn = reads == .roomsOnly ? "0 AS unread" : "room_members.unread_count AS unread"
        let lastColumns = lastMessages ? "last.body AS last_body, last.created_at AS last_at" : "NULL AS last_body, NULL AS last_at"
        let lastJoin = lastMessages
            ? "LEFT JOIN messages AS last ON last.id = (SELECT MAX(id) FROM messages WHERE messages.room_id = rooms.id AND in_timeline = 1)" : ""
        let rows = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT rooms.id, rooms.kind, rooms.name, rooms.dm_key, rooms.visibility, rooms.archived_at IS NOT NULL AS archived,
                   \(unreadColumn),
                   room_members.notify_level, users.notify_default, \(lastColumns)
            FROM rooms JOIN room_members ON room_members.room_id = rooms.id AND room_members.user_id = ?
            JOIN users ON users.id = room_members.user_id
            \(lastJoin)
            WHERE rooms.workspace_id = ?
            ORDER BY rooms.kind = 'channel' DESC, rooms.is_default DESC, rooms.name_key, rooms.id
            """), arguments: [userId, workspaceId])
        let entries = rows.map { row in
            SidebarEntry(id: row["id"], kind: Room.Kind(rawValue: row["kind"]) ?? .channel, name: row["name"], dmKey: row["dm_key"],
                         isPrivate: (row["visibility"] as String) == "private", isArchived: row["archived"], unread: row["unread"],
                         ownNotify: (row["notify_level"] as String?).flatMap(NotifyLevel.init(rawValue:)),
                         defaultNotify: NotifyLevel(rawValue: row["notify_default"] as String) ?? .standard,
                         lastBody: row["last_body"], lastAt: row["last_at"])
        }
        let partnerIds = SidebarEntries.partnerIds(entries, viewer: userId)
        let partners = partnerIds.isEmpty ? [:] : try Dictionary(
            uniqueKeysWithValues: Row.fetchAll(db, sql: """
                SELECT id, nickname, avatar_file_id FROM users WHERE id IN (\(databaseQuestionMarks(count: partnerIds.count)))
                """, arguments: StatementArguments(partnerIds))
                .map { ($0["id"] as Int64, SidebarPartner(nickname: $0["nickname"], avatarFileId: $0["avatar_file_id"])) })
        return SidebarEntries.summaries(entries, workspaceId: workspaceId, viewer: userId, partners: partners,
                                        statuses: try StatusService.current(db, of: Set(partnerIds), at: Date()),
                                        groups: try GroupRooms.members(db, of: SidebarEntries.groupIds(entries)))
    }
}
