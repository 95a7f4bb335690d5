import Foundation
import PostgresNIO

/// `ThreadStore` on PostgreSQL: roots and their replies in `messages`, followers in
/// `thread_follows`.
struct PostgresThreadStore: ThreadStore {
    let session: PostgresSession

    func requireRoot(id: Int64, roomId: Int64) throws {
        guard let row = try session.run("SELECT room_id, thread_root_id FROM messages WHERE id = \(id)").first,
              case let (room, root) = try row.decode((Int64, Int64?).self), room == roomId, root == nil
        else { throw AppError.notFound }
    }

    func hasReplies(rootId: Int64) throws -> Bool {
        try !session.run("SELECT 1 FROM messages WHERE thread_root_id = \(rootId) LIMIT 1").isEmpty
    }

    func replyCount(rootId: Int64) throws -> Int {
        try session.run("SELECT COUNT(*) FROM messages WHERE thread_root_id = \(rootId)")[0].decode(Int.self)
    }

    func newestReplyId(rootId: Int64) throws -> Int64 {
        try session.run("SELECT MAX(id) FROM messages WHERE thread_root_id = \(rootId)")[0].decode(Int64?.self) ?? 0
    }

    func summaries(rootIds: [Int64]) throws -> [Int64: ThreadSummary] {
        guard !rootIds.isEmpty else { return [:] }
        let counts = try session.run("""
            SELECT replies.thread_root_id, COUNT(*), MAX(replies.id), (SELECT created_at FROM messages WHERE id = MAX(replies.id))
            FROM messages AS replies WHERE replies.thread_root_id = ANY(\(rootIds)) GROUP BY replies.thread_root_id
            """).map { try $0.decode((Int64, Int, Int64, Date).self) }
        guard !counts.isEmpty else { return [:] }
        var repliers: [Int64: [(latest: Int64, person: ThreadSummary.Replier)]] = [:]
        for row in try session.run("""
            SELECT messages.thread_root_id, users.id, MAX(messages.id), users.nickname, users.avatar_file_id
            FROM messages JOIN users ON users.id = messages.author_id
            WHERE messages.thread_root_id = ANY(\(counts.map(\.0)))
            GROUP BY messages.thread_root_id, users.id
            """) {
            let (root, userId, latest, nickname, avatarId) = try row.decode((Int64, Int64, Int64, String, Int64?).self)
            repliers[root, default: []].append((latest, ThreadSummary.Replier(id: userId, nickname: nickname, avatarId: avatarId)))
        }
        var summaries: [Int64: ThreadSummary] = [:]
        for (root, count, last, lastAt) in counts {
            let latest = (repliers[root] ?? []).sorted { $0.latest > $1.latest }.prefix(ThreadSummary.replierLimit).map(\.person)
            summaries[root] = ThreadSummary(rootId: root, replyCount: count, lastReplyId: last, lastReplyAt: lastAt, repliers: latest)
        }
        return summaries
    }

    func replies(rootId: Int64, before: Int64?, limit: Int) throws -> (stamps: [MessageStamp], hasOlder: Bool) {
        let rows = try session.run("""
            SELECT \(unescaped: MessageStamp.columns) FROM messages LEFT JOIN users ON users.id = messages.author_id
            WHERE messages.thread_root_id = \(rootId) AND messages.id < \(before ?? Int64.max) ORDER BY messages.id DESC LIMIT \(limit + 1)
            """).map(MessageStamp.init(postgres:))
        return (rows.prefix(limit).reversed(), rows.count > limit)
    }

    func follow(rootId: Int64, roomId: Int64, replyId: Int64, authorId: Int64, mentioned: [Int64]) throws -> [Int64] {
        // Those who followed already have one more reply to read (not its writer).
        try session.run("""
            UPDATE thread_follows SET unread_count = unread_count + 1
            WHERE root_id = \(rootId) AND last_read_id < \(replyId) AND user_id <> \(authorId)
            """)
        var joining = mentioned
        if try replyCount(rootId: rootId) == 1 {
            if let rootAuthor = try session.run("SELECT author_id FROM messages WHERE id = \(rootId)").first?.decode(Int64?.self) {
                joining.append(rootAuthor)
            }
            joining += try session.run("SELECT user_id FROM mentions WHERE message_id = \(rootId)").map { try $0.decode(Int64.self) }
        }
        let others = joining.filter { $0 != authorId }
        if !others.isEmpty {
            try session.run("""
                INSERT INTO thread_follows (user_id, root_id, room_id, last_read_id)
                SELECT DISTINCT room_members.user_id, \(rootId), \(roomId), 0 FROM room_members
                WHERE room_members.room_id = \(roomId) AND room_members.user_id = ANY(\(others))
                ON CONFLICT DO NOTHING
                """)
        }
        try session.run("""
            INSERT INTO thread_follows (user_id, root_id, room_id, last_read_id) VALUES (\(authorId), \(rootId), \(roomId), \(replyId))
            ON CONFLICT (user_id, root_id) DO UPDATE SET last_read_id = GREATEST(excluded.last_read_id, thread_follows.last_read_id)
            """)
        return try followers(rootId: rootId)
    }

    func replyRemoved(_ reply: Message) throws {
        guard let rootId = reply.threadRootId, let replyId = reply.id else { return }
        try session.run("""
            UPDATE thread_follows SET unread_count = unread_count - 1
            WHERE root_id = \(rootId) AND last_read_id < \(replyId) AND user_id IS DISTINCT FROM \(reply.authorId)
            """)
    }

    func followers(rootId: Int64) throws -> [Int64] {
        try session.run("SELECT user_id FROM thread_follows WHERE root_id = \(rootId) ORDER BY user_id").map { try $0.decode(Int64.self) }
    }

    func lastRead(userId: Int64, rootId: Int64) throws -> Int64? {
        try session.run("SELECT last_read_id FROM thread_follows WHERE user_id = \(userId) AND root_id = \(rootId)").first?.decode(Int64.self)
    }

    func advanceMarker(userId: Int64, rootId: Int64, to replyId: Int64) throws -> Bool {
        try !session.run("""
            UPDATE thread_follows SET last_read_id = \(replyId)
            WHERE user_id = \(userId) AND root_id = \(rootId) AND last_read_id < \(replyId) RETURNING root_id
            """).isEmpty
    }

    func startFollowing(userId: Int64, rootId: Int64, roomId: Int64) throws -> Bool {
        try !session.run("""
            INSERT INTO thread_follows (user_id, root_id, room_id, last_read_id)
            VALUES (\(userId), \(rootId), \(roomId), COALESCE((SELECT MAX(id) FROM messages WHERE thread_root_id = \(rootId)), 0))
            ON CONFLICT DO NOTHING RETURNING root_id
            """).isEmpty
    }

    func stopFollowing(userId: Int64, rootId: Int64) throws -> Bool {
        try !session.run("DELETE FROM thread_follows WHERE user_id = \(userId) AND root_id = \(rootId) RETURNING root_id").isEmpty
    }

    func unreadTotal(userId: Int64, workspaceId: Int64) throws -> Int {
        try PostgresReadMarkStore(session: session).threadUnread(userId: userId, workspaceId: workspaceId).replies
    }

    func unreadMentions(userId: Int64, workspaceId: Int64) throws -> Int {
        try PostgresReadMarkStore(session: session).threadUnread(userId: userId, workspaceId: workspaceId).mentions
    }

    func followed(userId: Int64, workspaceId: Int64, limit: Int) throws -> [(rootId: Int64, unread: Int)] {
        // NULLS LAST: a thread without replies sorts last, where SQLite puts NULL.
        try session.run("""
            SELECT thread_follows.root_id, thread_follows.unread_count FROM thread_follows
            JOIN rooms ON rooms.id = thread_follows.room_id AND rooms.workspace_id = \(workspaceId)
            JOIN room_members ON room_members.room_id = rooms.id AND room_members.user_id = thread_follows.user_id
            WHERE thread_follows.user_id = \(userId)
            ORDER BY (SELECT MAX(id) FROM messages WHERE thread_root_id = thread_follows.root_id) DESC NULLS LAST,
                     thread_follows.root_id DESC
            LIMIT \(limit)
            """).map { row in
            let (rootId, unread) = try row.decode((Int64, Int).self)
            return (rootId: rootId, unread: unread)
        }
    }
}
