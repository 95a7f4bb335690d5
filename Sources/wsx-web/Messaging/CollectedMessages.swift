import Foundation
import GRDB
import Views

/// A message gathered into one of a person's views (Mentions, Saved, a room's pins), with what
/// the view shows of its room.
struct CollectedMessage: Sendable {
    let message: MessageRow
    let room: Room
    /// What a conversation is called for the viewer: a DM's other person, a group's other
    /// members (nil for a channel, which shows its name).
    let conversationName: String?

    /// Each of `rows` with its room and, for DMs and groups, the people's names, read in three
    /// queries. Rows whose room is gone are left out.
    static func collect(_ db: Database, rows: [MessageRow], for userId: Int64) throws -> [CollectedMessage] {
        let rooms = try Room.fetchAll(db, keys: Set(rows.map(\.roomId))).reduce(into: [Int64: Room]()) { $0[$1.id!] = $1 }
        let partners = Set(rooms.values.filter { $0.kind == .dm }.map { DirectRooms.partnerId(of: $0, for: userId) })
        let names = try User.fetchAll(db, keys: partners).reduce(into: [Int64: String]()) { $0[$1.id!] = $1.nickname }
        let groups = try GroupRooms.members(db, of: rooms.values.filter { $0.kind == .group }.map { $0.id! })
        return rows.compactMap { row in
            guard let room = rooms[row.roomId] else { return nil }
            let name: String? = switch room.kind {
            case .channel: nil
            case .dm: names[DirectRooms.partnerId(of: room, for: userId)]
            case .group: GroupRooms.title(groups[room.id!] ?? [], viewer: userId)
            }
            return CollectedMessage(message: row, room: room, conversationName: name)
        }
    }

    /// The person's messages listed in `table` (a table with `user_id` and `message_id`, e.g.
    /// their mentions or saved messages) in rooms of the workspace they are still in, in `order`,
    /// with their files, rooms and DM partners.
    static func listed(_ db: Database, in table: String, userId: Int64, workspaceId: Int64, order: String,
                       limit: Int) throws -> [CollectedMessage] {
        let rows = try MessageRow.fetchAll(db, sql: """
            SELECT \(MessageRow.columns)
            FROM \(table) AS listed
            JOIN messages ON messages.id = listed.message_id
            JOIN rooms ON rooms.id = messages.room_id AND rooms.workspace_id = ?
            JOIN room_members ON room_members.room_id = rooms.id AND room_members.user_id = listed.user_id
            LEFT JOIN users ON users.id = messages.author_id
            WHERE listed.user_id = ?
            ORDER BY \(order) LIMIT ?
            """, arguments: [workspaceId, userId, limit])
        return try collect(db, rows: MessageService.withAttachments(db, rows), for: userId)
    }

    /// The view's line for this message as `viewer` sees it: where, who, when, what, and the way
    /// to it in its room.
    func item(for viewer: Int64) -> CollectedMessageItem {
        let roomURL = room.path(for: viewer)
        return CollectedMessageItem(roomLabel: conversationName ?? "#" + room.name, roomURL: roomURL,
                                    author: message.authorNickname ?? "—", timestamp: Timestamps.iso(message.createdAt),
                                    timeText: Timestamps.utcText(message.createdAt), bodyHtml: message.bodyHtml,
                                    fileNames: message.attachments.map(\.originalName),
                                    url: message.link(in: room, for: viewer))
    }
}

/// The messages that mentioned a person, for their Mentions view: newest first, only in rooms
/// of the workspace they are still in.
struct MentionList: Sendable {
    let database: AppDatabase

    func recent(userId: Int64, workspaceId: Int64, limit: Int = 50) async throws -> [CollectedMessage] {
        try database.read { db in
            try CollectedMessage.listed(db, in: "mentions", userId: userId, workspaceId: workspaceId,
                                        order: "listed.message_id DESC", limit: limit)
        }
    }
}
