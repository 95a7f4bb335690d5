import Foundation

/// A row of `messages`.
struct Message: Codable, Sendable, Equatable {

    var id: Int64?
    var roomId: Int64
    var authorId: Int64?
    var body: String
    var bodyHtml: String
    var createdAt: Date
    var editedAt: Date?
    /// A reply's thread (its root message); nil for a message of the room.
    var threadRootId: Int64?
    /// Whether the room's timeline lists it: every message but a reply kept in its thread.
    var inTimeline: Bool = true
    /// Set on a thread's root deleted while it had replies: a placeholder without text or files.
    var deletedAt: Date?

    enum CodingKeys: String, CodingKey {
        case id, roomId = "room_id", authorId = "author_id", body, bodyHtml = "body_html", createdAt = "created_at"
        case editedAt = "edited_at", threadRootId = "thread_root_id", inTimeline = "in_timeline", deletedAt = "deleted_at"
    }
}

/// A message with its author's nickname, as lists show it.
struct MessageRow: Sendable, Decodable {
    let id: Int64
    let roomId: Int64
    let authorId: Int64?
    let authorNickname: String?
    let authorAvatarId: Int64?
    let body: String
    let bodyHtml: String
    let createdAt: Date
    let editedAt: Date?
    /// A reply's thread (its root), whether the room's timeline lists it, and whether it is a
    /// deleted root's placeholder.
    let threadRootId: Int64?
    let inTimeline: Bool
    let isDeleted: Bool
    /// An administrator deactivated its author: the message says so beside their name.
    let authorDeactivated: Bool
    /// Its files, loaded separately (not a column).
    var attachments: [StoredFile] = []
    /// Its author is an incoming webhook's bot (`users.is_bot`): the message says so. A
    /// message's author never changes, so its fragment's key (`MessageStamp`) needs no part of it.
    var authorIsBot = false

    enum CodingKeys: String, CodingKey {
        case id, roomId = "room_id", authorId = "author_id", authorNickname = "author_nickname"
        case authorAvatarId = "author_avatar_id", body
        case bodyHtml = "body_html", createdAt = "created_at", editedAt = "edited_at"
        case threadRootId = "thread_root_id", inTimeline = "in_timeline", isDeleted = "is_deleted"
        case authorDeactivated = "author_deactivated"
    }

    init(id: Int64, roomId: Int64, authorId: Int64?, authorNickname: String?, authorAvatarId: Int64?, body: String,
         bodyHtml: String, createdAt: Date, editedAt: Date?, threadRootId: Int64?, inTimeline: Bool, isDeleted: Bool,
         authorDeactivated: Bool, attachments: [StoredFile]) {
        (self.id, self.roomId, self.authorId, self.authorNickname, self.authorAvatarId) = (id, roomId, authorId, authorNickname, authorAvatarId)
        (self.body, self.bodyHtml, self.createdAt, self.editedAt) = (body, bodyHtml, createdAt, editedAt)
        (self.threadRootId, self.inTimeline, self.isDeleted, self.authorDeactivated) = (threadRootId, inTimeline, isDeleted, authorDeactivated)
        self.attachments = attachments
    }

    /// The columns every message query selects, in the order `init(row:)` reads them.
    static let columns = """
        messages.id, messages.room_id, messages.author_id, users.nickname AS author_nickname,
        users.avatar_file_id AS author_avatar_id, messages.body,
        messages.body_html, messages.created_at, messages.edited_at,
        messages.thread_root_id, messages.in_timeline, messages.deleted_at IS NOT NULL AS is_deleted,
        users.deactivated_at IS NOT NULL AS author_deactivated, COALESCE(users.is_bot, FALSE) AS author_is_bot
        """

    /// Where this message is shown as `viewer` reaches it: a reply in its thread, anything else
    /// in its room around it.
    func link(in room: Room, for viewer: Int64) -> String {
        if let root = threadRootId { return Paths.thread(room.workspaceId, root, fragment: "m-\(id)") }
        return Paths.message(id, on: room.path(for: viewer))
    }
}

/// A message without its text and files: what a page needs to place it (day, unread line,
/// controls) and to find its already rendered fragment. Reading these instead of whole rows
/// spares a page the text and attachments of every message it has rendered before.
struct MessageStamp: Sendable, Equatable {
    let id: Int64
    let authorId: Int64?
    let authorNickname: String?
    let authorAvatarId: Int64?
    let createdAt: Date
    let editedAt: Date?
    /// A deleted thread root's placeholder: listed, with no controls.
    let isDeleted: Bool
    let authorDeactivated: Bool

    init(_ row: MessageRow) {
        (id, authorId, authorNickname, authorAvatarId) = (row.id, row.authorId, row.authorNickname, row.authorAvatarId)
        (createdAt, editedAt, isDeleted, authorDeactivated) = (row.createdAt, row.editedAt, row.isDeleted, row.authorDeactivated)
    }

    /// The columns a stamp query selects, in the order `init(row:)` reads them.
    static let columns = """
        messages.id, messages.author_id, users.nickname AS author_nickname, users.avatar_file_id AS author_avatar_id,
        messages.created_at, messages.edited_at, messages.deleted_at IS NOT NULL, users.deactivated_at IS NOT NULL
        """
}

/// Where a page of messages is anchored: the newest, before or after a message, or around one.
enum MessageAnchor: Hashable, Sendable {
    case latest
    case before(Int64)
    case after(Int64)
    case around(Int64)

    /// Reads `?before=`, `?after=` or `?around=`; a cursor that is not a number is a 400.
    init(query: (String) -> String?) throws {
        func cursor(_ name: String) throws -> Int64? {
            guard let text = query(name) else { return nil }
            guard let value = Int64(text), value > 0 else { throw AppError.badRequest }
            return value
        }
        if let id = try cursor("before") { self = .before(id) }
        else if let id = try cursor("after") { self = .after(id) }
        else if let id = try cursor("around") { self = .around(id) }
        else { self = .latest }
    }
}

/// One page of a room's messages, oldest first.
struct MessagePage: Sendable {
    let messages: [MessageStamp]
    let hasOlder: Bool
    let hasNewer: Bool
    /// The reactions of the page's messages that have any.
    var reactions: [Int64: [ReactionGroup]] = [:]
    /// Which of the page's messages are pinned, and how many the whole room has.
    var pinned: Set<Int64> = []
    var pinnedCount = 0
    /// The link preview cards of the page's messages that have one.
    var previews: [Int64: LinkPreview] = [:]
    /// The threads of the page's messages that have replies.
    var threads: [Int64: ThreadSummary] = [:]
}
