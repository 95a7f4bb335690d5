import Foundation

/// Threads as the routes use them: finding the thread a message belongs to, reading its page,
/// moving a follower's read marker, following and unfollowing, and the threads a person follows.
/// Posting a reply is `MessageService.post` with a `ThreadPlacement`.
struct ThreadService: Sendable {
    let database: AppDatabase
    let markers: ThreadMarkers

    /// How many replies a thread's page shows at once (the newest; older ones page back).
    static let pageSize = 100

    /// A thread found through one of its messages.
    struct Located: Sendable {
        let rootId: Int64
        let room: Room
        /// The message asked for was a reply (its page is its root's).
        let viaReply: Bool
        /// The person is in the room (else a workspace member reading a public channel).
        var isMember = true
    }

    /// The thread of message `id` (its own, or its root's for a reply), for a member of its room,
    /// and for reading (`publicReaders`) also for the workspace's members when the room is a
    /// public channel, as they read the channel itself; anyone else gets the 404 of a message
    /// they cannot see.
    func locate(_ access: WorkspaceAccess, messageId: Int64, publicReaders: Bool = false) async throws -> Located {
        try await database.queryOffLoop { tx in
            guard let message = try tx.messages.message(id: messageId),
                  let room = try tx.rooms.room(id: message.roomId), room.workspaceId == access.workspaceId
            else { throw AppError.notFound }
            let isMember = try tx.rooms.isMember(roomId: room.id!, userId: access.userId)
            guard isMember || (publicReaders && room.kind == .channel && !room.isPrivate) else { throw AppError.notFound }
            return Located(rootId: message.threadRootId ?? messageId, room: room, viaReply: message.threadRootId != nil,
                           isMember: isMember)
        }
    }

    /// What a thread's page shows: the root, then the newest replies (or those before `before`).
    struct Page: Sendable {
        /// The root first, then the replies, oldest first.
        let stamps: [MessageStamp]
        let hasOlder: Bool
        let replyCount: Int
        var reactions: [Int64: [ReactionGroup]] = [:]
        var pinned: Set<Int64> = []
        var previews: [Int64: LinkPreview] = [:]
        /// The reader follows the thread, and how far they read it (`.max` when not following:
        /// no unread line).
        var isFollowing = false
        var lastRead: Int64 = .max
    }

    /// The page of thread `rootId` for `userId`, read in `tx`.
    static func page(_ tx: any StoreTransaction, rootId: Int64, userId: Int64, before: Int64?) throws -> Page {
        guard let root = try tx.messages.stamp(id: rootId) else { throw AppError.notFound }
        let (replies, hasOlder) = try tx.threads.replies(rootId: rootId, before: before, limit: pageSize)
        let stamps = [root] + replies
        let ids = stamps.map(\.id)
        var page = Page(stamps: stamps, hasOlder: hasOlder, replyCount: try tx.threads.replyCount(rootId: rootId))
        page.reactions = try tx.reactions.groups(messageIds: ids)
        page.pinned = try tx.pins.pinned(among: ids)
        page.previews = try tx.linkPreviews.previews(among: ids)
        if let lastRead = try tx.threads.lastRead(userId: userId, rootId: rootId) {
            (page.isFollowing, page.lastRead) = (true, lastRead)
        }
        return page
    }

    // MARK: Reading and following

    /// Moves the follower's marker in the thread forward to `upTo` (or its newest reply) and
    /// tells their tabs the workspace's unread replies now. Not following: nothing happens.
    func markRead(userId: Int64, rootId: Int64, room: Room, upTo: Int64? = nil) async throws {
        try await database.write { tx in
            let newest = try tx.threads.newestReplyId(rootId: rootId)
            let target = min(upTo ?? newest, newest)
            guard try tx.threads.advanceMarker(userId: userId, rootId: rootId, to: target) else { return }
            try Self.announceRead(tx, userId: userId, rootId: rootId, workspaceId: room.workspaceId)
        }
    }

    /// Starts following a thread (everything in it so far counts as read) or stops.
    func setFollowing(_ following: Bool, userId: Int64, rootId: Int64, room: Room) async throws {
        try await database.write { tx in
            let changed = following ? try tx.threads.startFollowing(userId: userId, rootId: rootId, roomId: room.id!)
                : try tx.threads.stopFollowing(userId: userId, rootId: rootId)
            guard changed else { return }
            try Self.announceRead(tx, userId: userId, rootId: rootId, workspaceId: room.workspaceId)
        }
    }

    /// `thread.read` to the person: which thread, and their unread replies in the workspace now
    /// (and how many of them mention them, for the Mentions badge).
    private static func announceRead(_ tx: any StoreTransaction, userId: Int64, rootId: Int64, workspaceId: Int64) throws {
        let total = try tx.threads.unreadTotal(userId: userId, workspaceId: workspaceId)
        let mentions = try tx.threads.unreadMentions(userId: userId, workspaceId: workspaceId)
        let json = CompactJSON.object(["mentionsTotal": .int(mentions), "rootId": .int(rootId), "unreadTotal": .int(total),
                                       "workspaceId": .int(workspaceId)])
        try tx.publish(OutgoingEvent(.threadRead, to: .user(userId), json: json))
    }

    // MARK: The Threads view

    /// A thread someone follows, as their Threads view lists it.
    struct Followed: Sendable {
        let root: CollectedMessage
        let summary: ThreadSummary?
        let unread: Int
    }

    /// The threads `access`'s person follows in rooms of the workspace they are still in, the
    /// latest reply first.
    func followed(_ access: WorkspaceAccess, limit: Int = 50) async throws -> [Followed] {
        try await database.queryOffLoop { tx in
            let follows = try tx.threads.followed(userId: access.userId, workspaceId: access.workspaceId, limit: limit)
            let ids = follows.map(\.rootId)
            guard !ids.isEmpty else { return [] }
            let collected = try tx.messages.collect(tx.messages.rows(ids: ids), for: access.userId)
            let byId = Dictionary(collected.map { ($0.message.id, $0) }) { first, _ in first }
            let summaries = try tx.threads.summaries(rootIds: ids)
            return follows.compactMap { follow in
                byId[follow.rootId].map { Followed(root: $0, summary: summaries[follow.rootId], unread: follow.unread) }
            }
        }
    }
}
