import Foundation
import PostgresNIO

/// `SearchStore` on PostgreSQL: LIKE for names, `message_search` (a `tsvector` of wsx's own
/// tokens, `PostgresSearchTokens`, with a GIN index) for messages.
struct PostgresSearchStore: SearchStore {
    let session: PostgresSession

    func index(messageId: Int64, roomId: Int64, text: String) throws {
        try session.run("""
            INSERT INTO message_search (message_id, room_id, tokens) VALUES (\(messageId), \(roomId), \(PostgresSearchTokens.vector(text))::tsvector)
            ON CONFLICT (message_id) DO UPDATE SET room_id = excluded.room_id, tokens = excluded.tokens
            """)
    }

    func channels(workspaceId: Int64, userId: Int64, containing pattern: String, afterId: Int64, limit: Int) throws -> [SearchService.ChannelHit] {
        try session.run("""
            SELECT id, name, description FROM rooms
            WHERE workspace_id = \(workspaceId) AND kind = 'channel' AND id > \(afterId)
              AND (name_key LIKE \(pattern) ESCAPE '\\' OR lower(description) LIKE \(pattern) ESCAPE '\\')
              AND (visibility = 'public' OR EXISTS (SELECT 1 FROM room_members WHERE room_id = rooms.id AND user_id = \(userId)))
            ORDER BY id LIMIT \(limit)
            """).map { row in
            let (id, name, description) = try row.decode((Int64, String, String).self)
            return SearchService.ChannelHit(id: id, name: name, description: description)
        }
    }

    func members(workspaceId: Int64, containing pattern: String, afterId: Int64, limit: Int) throws -> [SearchService.MemberHit] {
        try session.run("""
            SELECT users.id, users.nickname, users.email FROM users
            JOIN workspace_members ON workspace_members.user_id = users.id AND workspace_members.workspace_id = \(workspaceId)
            WHERE users.id > \(afterId) AND (lower(users.nickname) LIKE \(pattern) ESCAPE '\\' OR users.email_key LIKE \(pattern) ESCAPE '\\')
            ORDER BY users.id LIMIT \(limit)
            """).map { row in
            let (id, nickname, email) = try row.decode((Int64, String, String).self)
            return SearchService.MemberHit(id: id, nickname: nickname, email: email)
        }
    }

    func files(containing pattern: String, roomIds: [Int64], limit: Int) throws -> [FoundFile] {
        guard !roomIds.isEmpty else { return [] }
        return try session.run("""
            SELECT files.original_name, files.size, \(unescaped: Self.messageColumns)
            FROM files JOIN message_files ON message_files.file_id = files.id
            JOIN messages ON messages.id = message_files.message_id
            LEFT JOIN users ON users.id = messages.author_id
            WHERE lower(files.original_name) LIKE \(pattern) ESCAPE '\\' AND messages.deleted_at IS NULL
              AND messages.room_id = ANY(\(roomIds))
            ORDER BY messages.id DESC LIMIT \(limit)
            """).map { row in
            let cells = try row.decode((String, Int, Int64, Int64, String, Date, String?, Int64?).self)
            return FoundFile(name: cells.0, size: cells.1,
                             message: FoundMessage(id: cells.2, roomId: cells.3, body: cells.4, createdAt: cells.5,
                                                   authorNickname: cells.6, threadRootId: cells.7))
        }
    }

    func messages(matching query: String, roomIds: [Int64], beforeId: Int64, limit: Int) throws -> [FoundMessage] {
        guard let terms = PostgresSearchTokens.query(query), !roomIds.isEmpty else { return [] }
        return try session.run("""
            SELECT \(unescaped: Self.messageColumns)
            FROM message_search JOIN messages ON messages.id = message_search.message_id
            LEFT JOIN users ON users.id = messages.author_id
            WHERE message_search.tokens @@ \(terms)::tsquery AND message_search.room_id = ANY(\(roomIds))
              AND message_search.message_id < \(beforeId)
            ORDER BY message_search.message_id DESC LIMIT \(limit)
            """).map { row in
            let (id, roomId, body, createdAt, nickname, root) = try row.decode((Int64, Int64, String, Date, String?, Int64?).self)
            return FoundMessage(id: id, roomId: roomId, body: body, createdAt: createdAt, authorNickname: nickname, threadRootId: root)
        }
    }

    private static let messageColumns = "messages.id, messages.room_id, messages.body, messages.created_at, users.nickname, messages.thread_root_id"
}
