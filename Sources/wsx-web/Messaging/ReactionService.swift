import Foundation
import GRDB

/// Everyone's reaction with one emoji to one message, in the order they reacted.
struct ReactionGroup: Codable, Sendable, Equatable {
    let emoji: String
    var userIds: [Int64]
    var names: [String]
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
        let now = clock.now(), outbox = database.outbox
        return try await database.writer.write { db in
            let (_, room) = try MessageService.writableMessage(db, id: messageId, access)
            try db.execute(sql: "DELETE FROM reactions WHERE message_id = ? AND emoji = ? AND user_id = ?",
                           arguments: [messageId, entry.emoji, access.userId])
            if db.changesCount == 0 {
                let used = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM reactions WHERE message_id = ? AND emoji = ?)",
                                             arguments: [messageId, entry.emoji]) ?? false
                let kinds = try Int.fetchOne(db, sql: "SELECT COUNT(DISTINCT emoji) FROM reactions WHERE message_id = ?",
                                             arguments: [messageId]) ?? 0
                guard used || kinds < Self.maximumEmoji else {
                    throw AppError.status(409, "error_reaction_limit", String(Self.maximumEmoji))
                }
                try db.execute(sql: "INSERT INTO reactions (message_id, user_id, emoji, created_at) VALUES (?, ?, ?, ?)",
                               arguments: [messageId, access.userId, entry.emoji, Timestamps.database(now)])
            }
            let groups = try Self.groups(db, messageIds: [messageId])[messageId] ?? []
            let payload = ReactionsPayload(workspaceId: room.workspaceId, roomId: room.id!, messageId: messageId, groups: groups)
            try outbox.publish(OutgoingEvent(.reactionsChanged, to: .room(room.id!), payload: payload), in: db)
            return (room, groups)
        }
    }

    /// The reactions of one message, if the person may see it.
    func reactions(messageId: Int64, in access: WorkspaceAccess) async throws -> (MessageRow, Room, [ReactionGroup]) {
        try database.read { db in
            let (_, room) = try MessageService.visibleMessage(db, id: messageId, access)
            return (try MessageService.row(db, id: messageId), room, try Self.groups(db, messageIds: [messageId])[messageId] ?? [])
        }
    }

    /// The reactions of each of `messageIds` that has any.
    static func groups(_ db: Database, messageIds: [Int64]) throws -> [Int64: [ReactionGroup]] {
        guard !messageIds.isEmpty else { return [:] }
        let rows = try Row.fetchAll(db, sql: """
            SELECT reactions.message_id, reactions.emoji, reactions.user_id, users.nickname
            FROM reactions JOIN users ON users.id = reactions.user_id
            WHERE reactions.message_id IN (\(databaseQuestionMarks(count: messageIds.count)))
            ORDER BY reactions.message_id, reactions.id
            """, arguments: StatementArguments(messageIds))
        var groups: [Int64: [ReactionGroup]] = [:]
        for row in rows {
            let messageId: Int64 = row[0], emoji: String = row[1], userId: Int64 = row[2], name: String = row[3]
            var list = groups[messageId] ?? []
            if let index = list.firstIndex(where: { $0.emoji == emoji }) {
                list[index].userIds.append(userId)
                list[index].names.append(name)
            } else {
                list.append(ReactionGroup(emoji: emoji, userIds: [userId], names: [name]))
            }
            groups[messageId] = list
        }
        return groups
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
