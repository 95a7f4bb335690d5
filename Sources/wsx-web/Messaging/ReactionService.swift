import Foundation
import HTTPTypes

/// Everyone's reaction with one emoji to one message, in the order they reacted.
struct ReactionGroup: Codable, Sendable, Equatable {
    let emoji: String
    var userIds: [Int64]
    var names: [String]

    /// Reactions as a store reads them (by message, then in the order people reacted) grouped
    /// by message and emoji, each emoji's group in the order of its first reaction.
    static func grouped(_ reactions: [(messageId: Int64, emoji: String, userId: Int64, name: String)]) -> [Int64: [ReactionGroup]] {
        var groups: [Int64: [ReactionGroup]] = [:]
        for reaction in reactions {
            var list = groups[reaction.messageId] ?? []
            if let index = list.firstIndex(where: { $0.emoji == reaction.emoji }) {
                list[index].userIds.append(reaction.userId)
                list[index].names.append(reaction.name)
            } else {
                list.append(ReactionGroup(emoji: reaction.emoji, userIds: [reaction.userId], names: [reaction.name]))
            }
            groups[reaction.messageId] = list
        }
        return groups
    }
}

/// Reactions: each room member may react to a message with any number of emoji, once each;
/// a message carries at most `maximumEmoji` different ones. Every change is one transaction
/// with the event that tells the room.
struct ReactionService: Sendable {
    let database: AppDatabase
    let clock: WallClock
    let catalog: EmojiCatalog

    static let maximumEmoji = 50

    /// Adds the person's reaction with `emoji` to the message, or takes it back if they had
    /// it; answers the message's room and reactions as they are now. A 404 outside the room,
    /// a 422 for text that is not one emoji, a 409 for a 51st different emoji.
    func toggle(messageId: Int64, in access: WorkspaceAccess, emoji text: String) async throws -> (Room, [ReactionGroup]) {
        guard let entry = catalog.entry(for: text) else {
            throw AppError(status: .unprocessableContent, messageKey: "error_reaction_emoji")
        }
        let now = clock.now()
        return try await database.write { tx in
            let (_, room) = try tx.messages.writable(id: messageId, access)
            if try !tx.reactions.remove(messageId: messageId, emoji: entry.emoji, userId: access.userId) {
                let used = try tx.reactions.isUsed(messageId: messageId, emoji: entry.emoji)
                guard try used || tx.reactions.emojiCount(messageId: messageId) < Self.maximumEmoji else {
                    throw AppError.status(409, "error_reaction_limit", String(Self.maximumEmoji))
                }
                try tx.reactions.add(messageId: messageId, emoji: entry.emoji, userId: access.userId, at: now)
            }
            let groups = try tx.reactions.groups(messageIds: [messageId])[messageId] ?? []
            let payload = ReactionsPayload(workspaceId: room.workspaceId, roomId: room.id!, messageId: messageId, groups: groups)
            try tx.publish(OutgoingEvent(.reactionsChanged, to: .room(room.id!), payload: payload))
            return (room, groups)
        }
    }

    /// The reactions of one message, if the person may see it.
    func reactions(messageId: Int64, in access: WorkspaceAccess) async throws -> (MessageRow, Room, [ReactionGroup]) {
        try await database.queryOffLoop { tx in
            let (_, room) = try tx.messages.visible(id: messageId, access)
            return (try tx.messages.row(id: messageId, hasFiles: true), room, try tx.reactions.groups(messageIds: [messageId])[messageId] ?? [])
        }
    }
}

/// `reactions.changed`: a message's reactions as they are now (room audience); each tab marks
/// its viewer's own. Also the JSON answer to the person who reacted.
struct ReactionsPayload: Codable, Sendable {
    let workspaceId: Int64
    let roomId: Int64
    let messageId: Int64
    let reactions: [ReactionGroup]

    init(workspaceId: Int64, roomId: Int64, messageId: Int64, groups: [ReactionGroup]) {
        (self.workspaceId, self.roomId, self.messageId, reactions) = (workspaceId, roomId, messageId, groups)
    }
}
