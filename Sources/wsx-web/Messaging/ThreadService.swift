import Foundation
import GRDB

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
        try database.read { db in
            guard let message = try Message.fetchOne(db, key: messageId),
                  let room = try Room.fetchOne(db, key: message.roomId), room.workspaceId == access.workspaceId
            else { throw AppError.notFound }
            let isMember = try RoomMember.fetchOne(db, key: ["room_id": room.id!, "user_id": access.userId]) != nil
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

    /// The page of thread `rootId` for `userId`, read in `db`.
    static func page(_ db: Database, rootId: Int64, userId: Int64, before: Int64?) throws -> Page {
        guard let root = try MessageStamp.fetchOne(db.cachedStatement(sql: """
            SELECT \(MessageStamp.columns) FROM messages LEFT JOIN users ON users.id = messages.author_id WHERE messages.id = ?
            """), arguments: [rootId]) else { throw AppError.notFound }
        let (replies, hasOlder) = try ThreadRecords.replies(db, rootId: rootId, before: before, limit: pageSize)
        let count = try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM messages WHERE thread_root_id = ?"),
                                     arguments: [rootId]) ?? 0
        let stamps = [root] + replies
        let ids = stamps.map(\.id)
        var page = Page(stamps: stamps, hasOlder: hasOlder, replyCount: count)
        page.reactions = try SQLiteReactionStore(db: db).groups(messageIds: ids)
        page.pinned = try SQLitePinStore(db: db).pinned(among: ids)
        page.previews = try SQLiteLinkPreviewStore(db: db).previews(among: ids)
        if let lastRead = try Int64.fetchOne(db, sql: "SELECT last_read_id FROM thread_follows WHERE user_id = ? AND root_id = ?",
                                             arguments: [userId, rootId]) {
            (page.isFollowing, page.lastRead) = (true, lastRead)
        }
        return page
    }

    // MARK: Reading and following

    /// Moves the follower's marker in the thread forward to `upTo` (or its newest reply) and
    /// tells their tabs the workspace's unread replies now. Not following: nothing happens.
    func markRead(userId: Int64, rootId: Int64, room: Room, upTo: Int64? = nil) async throws {
        let outbox = database.outbox
        try await database.writer.write { db in
            let newest = try Int64.fetchOne(db.cachedStatement(sql: "SELECT MAX(id) FROM messages WHERE thread_root_id = ?"),
                                            arguments: [rootId]) ?? 0
            let target = min(upTo ?? newest, newest)
            try db.cachedStatement(sql: """
                UPDATE thread_follows SET last_read_id = ? WHERE user_id = ? AND root_id = ? AND last_read_id < ?
                """).execute(arguments: [target, userId, rootId, target])
            guard db.changesCount > 0 else { return }
            try Self.announceRead(db, userId: userId, rootId: rootId, workspaceId: room.workspaceId, outbox: outbox)
        }
    }

    /// Starts following a thread (everything in it so far counts as read) or stops.
    func setFollowing(_ following: Bool, userId: Int64, rootId: Int64, room: Room) async throws {
        let outbox = database.outbox
        try await database.writer.write { db in
            if following {
                try db.execute(sql: """
                    INSERT INTO thread_follows (user_id, root_id, room_id, last_read_id)
                    VALUES (?, ?, ?, COALESCE((SELECT MAX(id) FROM messages WHERE thread_root_id = ?), 0))
                    ON CONFLICT DO NOTHING
                    """, arguments: [userId, rootId, room.id!, rootId])
            } else {
                try db.execute(sql: "DELETE FROM thread_follows WHERE user_id = ? AND root_id = ?", arguments: [userId, rootId])
            }
            guard db.changesCount > 0 else { return }
            try Self.announceRead(db, userId: userId, rootId: rootId, workspaceId: room.workspaceId, outbox: outbox)
        }
    }

    /// `thread.read` to the person: which thread, and their unread replies in the workspace now
    /// (and how many of them mention them, for the Mentions badge).
    private static func announceRead(_ db: Database, userId: Int64, rootId: Int64, workspaceId: Int64, outbox: EventOutbox) throws {
        let total = try ThreadRecords.unreadTotal(db, userId: userId, workspaceId: workspaceId)
        let mentions = try ThreadRecords.unreadMentions(db, userId: userId, workspaceId: workspaceId)
        let json = CompactJSON.object(["mentionsTotal": .int(mentions), "rootId": .int(rootId), "unreadTotal": .int(total),
                                       "workspaceId": .int(workspaceId)])
        try outbox.publish(OutgoingEvent(.threadRead, to: .user(userId), json: json), in: db)
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
        try database.read { db in
            let follows = try Row.fetchAll(db, sql: """
                SELECT thread_follows.root_id, thread_follows.unread_count FROM thread_follows
                JOIN rooms ON rooms.id = thread_follows.room_id AND rooms.workspace_id = ?
                JOIN room_members ON room_members.room_id = rooms.id AND room_members.user_id = thread_follows.user_id
                WHERE thread_follows.user_id = ?
                ORDER BY (SELECT MAX(id) FROM messages WHERE thread_root_id = thread_follows.root_id) DESC,
                         thread_follows.root_id DESC
                LIMIT ?
                """, arguments: [access.workspaceId, access.userId, limit])
            let ids = follows.map { $0[0] as Int64 }
            guard !ids.isEmpty else { return [] }
            let rows = try MessageRow.fetchAll(db, sql: """
                SELECT \(MessageRow.columns) FROM messages LEFT JOIN users ON users.id = messages.author_id
                WHERE messages.id IN (\(databaseQuestionMarks(count: ids.count)))
                """, arguments: StatementArguments(ids))
            let collected = try SQLiteMessageStore(db: db).collect(MessageService.withAttachments(db, rows), for: access.userId)
            let byId = Dictionary(collected.map { ($0.message.id, $0) }) { first, _ in first }
            let summaries = try ThreadRecords.summaries(db, rootIds: ids)
            return follows.compactMap { row in
                let id: Int64 = row[0]
                return byId[id].map { Followed(root: $0, summary: summaries[id], unread: row[1]) }
            }
        }
    }
}
