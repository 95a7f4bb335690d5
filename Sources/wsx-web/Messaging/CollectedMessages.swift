import Foundation
import Views

/// A message gathered into one of a person's views (Mentions, Saved, a room's pins), with what
/// the view shows of its room.
struct CollectedMessage: Sendable {
    let message: MessageRow
    let room: Room
    /// What a conversation is called for the viewer: a DM's other person, a group's other
    /// members (nil for a channel, which shows its name).
    let conversationName: String?

    /// Each of `rows` with its room and conversation name as `viewer` sees it, from what a store
    /// read: the rooms by id, the DM partners' nicknames by id, the groups' members by room.
    /// Rows whose room is gone are left out.
    static func named(_ rows: [MessageRow], rooms: [Int64: Room], partnerNames: [Int64: String],
                      groups: [Int64: [GroupRooms.Person]], for viewer: Int64) -> [CollectedMessage] {
        rows.compactMap { row in
            guard let room = rooms[row.roomId] else { return nil }
            let name: String? = switch room.kind {
            case .channel: nil
            case .dm: partnerNames[DirectRooms.partnerId(of: room, for: viewer)]
            case .group: GroupRooms.title(groups[room.id!] ?? [], viewer: viewer)
            }
            return CollectedMessage(message: row, room: room, conversationName: name)
        }
    }

    /// The DM partners of `rooms` as `viewer` sees them, for a store to look up their names.
    static func partnerIds(in rooms: some Collection<Room>, for viewer: Int64) -> [Int64] {
        Array(Set(rooms.filter { $0.kind == .dm }.map { DirectRooms.partnerId(of: $0, for: viewer) }))
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
        try await database.queryOffLoop { tx in
            try tx.messages.collected(in: .mentions, userId: userId, workspaceId: workspaceId, limit: limit)
        }
    }
}
