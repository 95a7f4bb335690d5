import Foundation

/// A message just posted or edited, and its HTML as every member's list shows it (sent with its
/// event, and to the author's tab in the answer), rendered once on the writer's turn.
struct WrittenMessage: Sendable {
    let row: MessageRow
    let html: String
    /// Posted before under the same client id: this is that message, and nothing was written.
    var isRepeat = false

    var id: Int64 { row.id }
}

struct MessagePayload: Codable, Sendable {
    let workspaceId: Int64
    let roomId: Int64
    let roomKind: String
    let roomName: String
    let messageId: Int64
    let authorId: Int64?
    let authorNickname: String
    let html: String
    let mentions: [Int64]
    /// Plain text for notifications.
    let snippet: String
    /// The room as the people it notifies reach it: a DM is reached by its author's id (a
    /// group by its own); a reply by its thread.
    let url: String
    /// A reply's thread, whether the room's timeline lists it, and who follows its thread (they
    /// are the ones it notifies); none of them for a message of the room.
    let threadRootId: Int64?
    let inTimeline: Bool?
    let followers: [Int64]?

    init(_ row: MessageRow, room: Room, html: String, mentions: [Int64], followers: [Int64] = []) {
        workspaceId = room.workspaceId
        roomId = room.id!
        roomKind = room.kind.rawValue
        roomName = room.name
        messageId = row.id
        authorId = row.authorId
        authorNickname = row.authorNickname ?? ""
        self.html = html
        self.mentions = mentions
        snippet = MessageText.snippet(row.body)
        url = if let root = row.threadRootId {
            Paths.thread(room.workspaceId, root, fragment: "m-\(row.id)")
        } else {
            switch room.kind {
            case .channel: Paths.channel(room.workspaceId, room.id!)
            case .dm: Paths.directMessages(room.workspaceId, row.authorId ?? 0)
            case .group: Paths.group(room.workspaceId, room.id!)
            }
        }
        threadRootId = row.threadRootId
        (inTimeline, self.followers) = row.threadRootId == nil ? (nil, nil) : (row.inTimeline, followers)
    }

    /// The payload as `JSONEncoder` would write it (keys sorted), written directly: posts encode
    /// it in the writer's turn.
    var json: String {
        CompactJSON.object([
            "authorId": .optional(authorId), "authorNickname": .string(authorNickname),
            "followers": followers.map(CompactJSON.Value.ints) ?? .absent, "html": .string(html),
            "inTimeline": inTimeline.map(CompactJSON.Value.bool) ?? .absent,
            "mentions": .ints(mentions), "messageId": .int(messageId), "roomId": .int(roomId),
            "roomKind": .string(roomKind), "roomName": .string(roomName), "snippet": .string(snippet),
            "threadRootId": .optional(threadRootId), "url": .string(url), "workspaceId": .int(workspaceId),
        ])
    }
}

struct MessageDeletedPayload: Codable, Sendable {
    let workspaceId: Int64
    let roomId: Int64
    let messageId: Int64
}

struct RoomReadPayload: Codable, Sendable {
    let workspaceId: Int64
    let roomId: Int64
    let lastRead: Int64
    let unread: Int
    /// How many of the unread messages mention the reader.
    let mentions: Int
}
