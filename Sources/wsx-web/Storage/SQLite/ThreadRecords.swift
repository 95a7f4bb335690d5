import Foundation
import GRDB

/// The SQL of threads, run inside the caller's transaction: roots, summaries, who follows a
/// thread and how far each of them has read it.
enum ThreadRecords {
    /// The root a reply may answer in `roomId`: a message of that room that is not itself a reply
    /// (a reply to a reply goes to the same thread: the caller passes the root). Else a 404.
    static func requireRoot(_ db: Database, id: Int64, roomId: Int64) throws {
        let root = try Row.fetchOne(db.cachedStatement(sql: "SELECT room_id, thread_root_id FROM messages WHERE id = ?"),
                                    arguments: [id])
        guard let root, (root[0] as Int64) == roomId, (root[1] as Int64?) == nil else { throw AppError.notFound }
    }

    /// Whether a message has replies.
    static func hasReplies(_ db: Database, rootId: Int64) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM messages WHERE thread_root_id = ?)"),
                          arguments: [rootId]) ?? false
    }

    /// The summaries of those of `rootIds` that have replies, in three queries whatever their number.
    static func summaries(_ db: Database, rootIds: [Int64]) throws -> [Int64: ThreadSummary] {
        guard !rootIds.isEmpty else { return [:] }
        let marks = databaseQuestionMarks(count: rootIds.count)
        let counts = try Row.fetchAll(db, sql: """
            SELECT thread_root_id, COUNT(*), MAX(id) FROM messages WHERE thread_root_id IN (\(marks)) GROUP BY thread_root_id
            """, arguments: StatementArguments(rootIds))
        guard !counts.isEmpty else { return [:] }
        let roots = counts.map { $0[0] as Int64 }
        let lastIds = counts.map { $0[2] as Int64 }
        let times = try Dictionary(uniqueKeysWithValues: Row.fetchAll(db, sql: """
            SELECT id, created_at FROM messages WHERE id IN (\(databaseQuestionMarks(count: lastIds.count)))
            """, arguments: StatementArguments(lastIds)).map { ($0[0] as Int64, $0[1] as Date) })
        var repliers: [Int64: [(latest: Int64, person: ThreadSummary.Replier)]] = [:]
        for row in try Row.fetchAll(db, sql: """
            SELECT messages.thread_root_id, users.id, MAX(messages.id), users.nickname, users.avatar_file_id
            FROM messages JOIN users ON users.id = messages.author_id
            WHERE messages.thread_root_id IN (\(databaseQuestionMarks(count: roots.count)))
            GROUP BY messages.thread_root_id, users.id
            """, arguments: StatementArguments(roots)) {
            repliers[row[0], default: []].append((row[2], ThreadSummary.Replier(id: row[1], nickname: row[3], avatarId: row[4])))
        }
        var summaries: [Int64: ThreadSummary] = [:]
        for row in counts {
            let root: Int64 = row[0], last: Int64 = row[2]
            let latest = (repliers[root] ?? []).sorted { $0.latest > $1.latest }.prefix(ThreadSummary.replierLimit).map(\.person)
            summaries[root] = ThreadSummary(rootId: root, replyCount: row[1], lastReplyId: last,
                                            lastReplyAt: times[last] ?? Date(timeIntervalSince1970: 0), repliers: latest)
        }
        return summaries
    }

    /// A thread's replies (their stamps), oldest first: the newest `limit`, or those before `before`.
    static func replies(_ db: Database, rootId: Int64, before: Int64?, limit: Int) throws -> (stamps: [MessageStamp], hasOlder: Bool) {
        let rows = try MessageStamp.fetchAll(db.cachedStatement(sql: """
            SELECT \(MessageStamp.columns) FROM messages LEFT JOIN users ON users.id = messages.author_id
            WHERE messages.thread_root_id = ? AND messages.id < ? ORDER BY messages.id DESC LIMIT ?
            """), arguments: [rootId, before ?? Int64.max, limit + 1])
        return (rows.prefix(limit).reversed(), rows.count > limit)
    }

    // MARK: Following

    /// Who follows a thread after a reply: its writer (read up to their reply), the people it
    /// mentions, and with the first reply the root's author and the people the root mentions,
    /// each only while they are in the room. Answers every follower.
    static func follow(_ db: Database, rootId: Int64, roomId: Int64, replyId: Int64, authorId: Int64,
                       mentioned: [Int64]) throws -> [Int64] {
        // Those who followed already have one more reply to read (not its writer).
        try db.cachedStatement(sql: """
            UPDATE thread_follows SET unread_count = unread_count + 1 WHERE root_id = ? AND last_read_id < ? AND user_id <> ?
            """).execute(arguments: [rootId, replyId, authorId])
        var joining = mentioned
        let replies = try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM messages WHERE thread_root_id = ?"),
                                       arguments: [rootId]) ?? 0
        if replies == 1 {
            if let rootAuthor = try Int64.fetchOne(db, sql: "SELECT author_id FROM messages WHERE id = ?", arguments: [rootId]) {
                joining.append(rootAuthor)
            }
            joining += try Int64.fetchAll(db, sql: "SELECT user_id FROM mentions WHERE message_id = ?", arguments: [rootId])
        }
        for person in joining where person != authorId {
            try db.cachedStatement(sql: """
                INSERT INTO thread_follows (user_id, root_id, room_id, last_read_id)
                SELECT ?, ?, ?, 0 WHERE EXISTS (SELECT 1 FROM room_members WHERE room_id = ? AND user_id = ?)
                ON CONFLICT DO NOTHING
                """).execute(arguments: [person, rootId, roomId, roomId, person])
        }
        try db.cachedStatement(sql: """
            INSERT INTO thread_follows (user_id, root_id, room_id, last_read_id) VALUES (?, ?, ?, ?)
            ON CONFLICT (user_id, root_id) DO UPDATE SET last_read_id = CASE
                WHEN excluded.last_read_id > thread_follows.last_read_id THEN excluded.last_read_id ELSE thread_follows.last_read_id END
            """).execute(arguments: [authorId, rootId, roomId, replyId])
        return try followers(db, rootId: rootId)
    }

    /// A reply is about to be deleted: it no longer counts for the followers who had not read it.
    static func replyRemoved(_ db: Database, _ reply: Message) throws {
        guard let rootId = reply.threadRootId else { return }
        try db.execute(sql: """
            UPDATE thread_follows SET unread_count = unread_count - 1
            WHERE root_id = ? AND last_read_id < ? AND (? IS NULL OR user_id <> ?)
            """, arguments: [rootId, reply.id, reply.authorId, reply.authorId])
    }

    static func followers(_ db: Database, rootId: Int64) throws -> [Int64] {
        try Int64.fetchAll(db.cachedStatement(sql: "SELECT user_id FROM thread_follows WHERE root_id = ? ORDER BY user_id"),
                           arguments: [rootId])
    }

    /// Whether `userId` follows the thread.
    static func isFollowing(_ db: Database, userId: Int64, rootId: Int64) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM thread_follows WHERE user_id = ? AND root_id = ?)",
                          arguments: [userId, rootId]) ?? false
    }

    /// The follower's unread replies, over the followed threads of rooms of the workspace they
    /// are still in and that are not archived.
    static func unreadTotal(_ db: Database, userId: Int64, workspaceId: Int64) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: """
            SELECT COALESCE(SUM(thread_follows.unread_count), 0) FROM thread_follows
            JOIN rooms ON rooms.id = thread_follows.room_id AND rooms.workspace_id = ? AND rooms.archived_at IS NULL
            JOIN room_members ON room_members.room_id = rooms.id AND room_members.user_id = thread_follows.user_id
            WHERE thread_follows.user_id = ? AND thread_follows.unread_count > 0
            """), arguments: [workspaceId, userId]) ?? 0
    }

    /// The follower's unread replies that mention them and stay in their thread (those also
    /// sent to the room count there), over the same threads.
    static func unreadMentions(_ db: Database, userId: Int64, workspaceId: Int64) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: """
            SELECT COUNT(*) FROM thread_follows
            JOIN rooms ON rooms.id = thread_follows.room_id AND rooms.workspace_id = ? AND rooms.archived_at IS NULL
            JOIN room_members ON room_members.room_id = rooms.id AND room_members.user_id = thread_follows.user_id
            JOIN mentions ON mentions.user_id = thread_follows.user_id AND mentions.message_id > thread_follows.last_read_id
            JOIN messages ON messages.id = mentions.message_id AND messages.thread_root_id = thread_follows.root_id
                AND messages.in_timeline = 0
            WHERE thread_follows.user_id = ? AND thread_follows.unread_count > 0
            """), arguments: [workspaceId, userId]) ?? 0
    }
}

/// `ThreadStore` on SQLite.
struct SQLiteThreadStore: ThreadStore {
    let db: Database

    func requireRoot(id: Int64, roomId: Int64) throws { try ThreadRecords.requireRoot(db, id: id, roomId: roomId) }

    func hasReplies(rootId: Int64) throws -> Bool { try ThreadRecords.hasReplies(db, rootId: rootId) }

    func replyCount(rootId: Int64) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM messages WHERE thread_root_id = ?"), arguments: [rootId]) ?? 0
    }

    func newestReplyId(rootId: Int64) throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT MAX(id) FROM messages WHERE thread_root_id = ?"), arguments: [rootId]) ?? 0
    }

    func summaries(rootIds: [Int64]) throws -> [Int64: ThreadSummary] { try ThreadRecords.summaries(db, rootIds: rootIds) }

    func replies(rootId: Int64, before: Int64?, limit: Int) throws -> (stamps: [MessageStamp], hasOlder: Bool) {
        try ThreadRecords.replies(db, rootId: rootId, before: before, limit: limit)
    }

    func follow(rootId: Int64, roomId: Int64, replyId: Int64, authorId: Int64, mentioned: [Int64]) throws -> [Int64] {
        try ThreadRecords.follow(db, rootId: rootId, roomId: roomId, replyId: replyId, authorId: authorId, mentioned: mentioned)
    }

    func replyRemoved(_ reply: Message) throws { try ThreadRecords.replyRemoved(db, reply) }

    func followers(rootId: Int64) throws -> [Int64] { try ThreadRecords.followers(db, rootId: rootId) }

    func lastRead(userId: Int64, rootId: Int64) throws -> Int64? {
        try Int64.fetchOne(db, sql: "SELECT last_read_id FROM thread_follows WHERE user_id = ? AND root_id = ?",
                           arguments: [userId, rootId])
    }

    func advanceMarker(userId: Int64, rootId: Int64, to replyId: Int64) throws -> Bool {
        try db.cachedStatement(sql: """
            UPDATE thread_follows SET last_read_id = ? WHERE user_id = ? AND root_id = ? AND last_read_id < ?
            """).execute(arguments: [replyId, userId, rootId, replyId])
        return db.changesCount > 0
    }

    func startFollowing(userId: Int64, rootId: Int64, roomId: Int64) throws -> Bool {
        try db.execute(sql: """
            INSERT INTO thread_follows (user_id, root_id, room_id, last_read_id)
            VALUES (?, ?, ?, COALESCE((SELECT MAX(id) FROM messages WHERE thread_root_id = ?), 0))
            ON CONFLICT DO NOTHING
            """, arguments: [userId, rootId, roomId, rootId])
        return db.changesCount > 0
    }

    func stopFollowing(userId: Int64, rootId: Int64) throws -> Bool {
        try db.execute(sql: "DELETE FROM thread_follows WHERE user_id = ? AND root_id = ?", arguments: [userId, rootId])
        return db.changesCount > 0
    }

    func unreadTotal(userId: Int64, workspaceId: Int64) throws -> Int {
        try ThreadRecords.unreadTotal(db, userId: userId, workspaceId: workspaceId)
    }

    func unreadMentions(userId: Int64, workspaceId: Int64) throws -> Int {
        try ThreadRecords.unreadMentions(db, userId: userId, workspaceId: workspaceId)
    }

    func followed(userId: Int64, workspaceId: Int64, limit: Int) throws -> [(rootId: Int64, unread: Int)] {
        try Row.fetchAll(db, sql: """
            SELECT thread_follows.root_id, thread_follows.unread_count FROM thread_follows
            JOIN rooms ON rooms.id = thread_follows.room_id AND rooms.workspace_id = ?
            JOIN room_members ON room_members.room_id = rooms.id AND room_members.user_id = thread_follows.user_id
            WHERE thread_follows.user_id = ?
            ORDER BY (SELECT MAX(id) FROM messages WHERE thread_root_id = thread_follows.root_id) DESC,
                     thread_follows.root_id DESC
            LIMIT ?
            """, arguments: [workspaceId, userId, limit]).map { (rootId: $0[0], unread: $0[1]) }
    }
}
