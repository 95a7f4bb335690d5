import Foundation
import GRDB
import Views

/// Reads the rooms a person is in within a workspace, with exact unread counts (messages after
/// their marker, not their own), for the sidebar and the workspace home.
enum RoomDirectory {
    /// With `lastMessages` false, no last message per room (the sidebar shows none).
    static func rooms(_ db: Database, workspaceId: Int64, userId: Int64, lastMessages: Bool = true) throws -> [RoomSummary] {
        let lastColumns = lastMessages ? "last.body AS last_body, last.created_at AS last_at" : "NULL AS last_body, NULL AS last_at"
        let lastJoin = lastMessages
            ? "LEFT JOIN messages AS last ON last.id = (SELECT MAX(id) FROM messages WHERE messages.room_id = rooms.id AND in_timeline = 1)" : ""
        let rows = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT rooms.id, rooms.kind, rooms.name, rooms.dm_key, rooms.visibility, rooms.archived_at IS NOT NULL AS archived,
                   room_members.unread_count AS unread,
                   room_members.notify_level, users.notify_default, \(lastColumns)
            FROM rooms JOIN room_members ON room_members.room_id = rooms.id AND room_members.user_id = ?
            JOIN users ON users.id = room_members.user_id
            \(lastJoin)
            WHERE rooms.workspace_id = ?
            ORDER BY rooms.kind = 'channel' DESC, rooms.is_default DESC, rooms.name_key, rooms.id
            """), arguments: [userId, workspaceId])
        let partnerIds = rows.compactMap { row -> Int64? in
            guard (row["kind"] as String) == "dm", let key: String = row["dm_key"] else { return nil }
            return key.split(separator: ":").compactMap { Int64($0) }.first { $0 != userId } ?? userId
        }
        let partners = partnerIds.isEmpty ? [:] : try Dictionary(
            uniqueKeysWithValues: Row.fetchAll(db, sql: """
                SELECT id, nickname, avatar_file_id FROM users WHERE id IN (\(databaseQuestionMarks(count: partnerIds.count)))
                """, arguments: StatementArguments(partnerIds))
                .map { ($0["id"] as Int64, (nickname: $0["nickname"] as String, avatar: $0["avatar_file_id"] as Int64?)) })
        let statuses = try StatusService.current(db, of: Set(partnerIds), at: Date())
        let groups = try GroupRooms.members(db, of: rows.compactMap { row -> Int64? in
            (row["kind"] as String) == Room.Kind.group.rawValue ? row["id"] : nil
        })
        return rows.map { row in
            let id: Int64 = row["id"]
            let kind = Room.Kind(rawValue: row["kind"]) ?? .channel
            let isChannel = kind == .channel
            var name: String = row["name"]
            var url = Paths.channel(workspaceId, id)
            var avatarURL: String?
            var personId: Int64?
            if kind == .dm, let key: String = row["dm_key"] {
                let partner = key.split(separator: ":").compactMap { Int64($0) }.first { $0 != userId } ?? userId
                name = partners[partner]?.nickname ?? ""
                avatarURL = partners[partner]?.avatar.map { Paths.thumbnail($0) }
                url = Paths.directMessages(workspaceId, partner)
                personId = partner
            }
            let group = groups[id]
            if let group {
                name = GroupRooms.title(group, viewer: userId)
                url = Paths.group(workspaceId, id)
            }
            let lastBody: String? = row["last_body"]
            return RoomSummary(id: id, isChannel: isChannel, name: name, url: url, unread: row["unread"],
                               lastSnippet: lastBody.map { MessageText.snippet($0, length: 80) }, lastAt: row["last_at"],
                               avatarURL: avatarURL, personId: personId, status: personId.flatMap { statuses[$0]?.label },
                               isPrivate: (row["visibility"] as String) == "private", isArchived: row["archived"],
                               groupSize: group?.count, initial: AvatarFace.initial(name),
                               ownNotify: (row["notify_level"] as String?).flatMap(NotifyLevel.init(rawValue:)),
                               defaultNotify: NotifyLevel(rawValue: row["notify_default"] as String) ?? .standard)
        }
    }
}
