import Foundation
import GRDB

/// `SearchStore` on SQLite: LIKE for names, the FTS5 index (`SearchIndex`) for messages.
struct SQLiteSearchStore: SearchStore {
    let db: Database

    func index(messageId: Int64, roomId: Int64, text: String) throws {
        try SearchIndex.index(db, messageId: messageId, roomId: roomId, text: text)
    }

    func channels(workspaceId: Int64, userId: Int64, containing pattern: String, afterId: Int64, limit: Int) throws -> [SearchService.ChannelHit] {
        try SearchService.ChannelHit.fetchAll(db, sql: """
            SELECT id, name, description FROM rooms
            WHERE workspace_id = ? AND kind = 'channel' AND id > ? AND (name_key LIKE ? ESCAPE '\\' OR lower(description) LIKE ? ESCAPE '\\')
              AND (visibility = 'public' OR EXISTS (SELECT 1 FROM room_members WHERE room_id = rooms.id AND user_id = ?))
            ORDER BY id LIMIT ?
            """, arguments: [workspaceId, afterId, pattern, pattern, userId, limit])
    }

    func members(workspaceId: Int64, containing pattern: String, afterId: Int64, limit: Int) throws -> [SearchService.MemberHit] {
        try SearchService.MemberHit.fetchAll(db, sql: """
            SELECT users.id, users.nickname, users.email FROM users
            JOIN workspace_members ON workspace_members.user_id = users.id AND workspace_members.workspace_id = ?
            WHERE users.id > ? AND (lower(users.nickname) LIKE ? ESCAPE '\\' OR users.email_key LIKE ? ESCAPE '\\')
            ORDER BY users.id LIMIT ?
            """, arguments: [workspaceId, afterId, pattern, pattern, limit])
    }

    func files(containing pattern: String, roomIds: [Int64], limit: Int) throws -> [FoundFile] {
        guard !roomIds.isEmpty else { return [] }
        // From the files (far fewer than messages) to their messages.
        return try Row.fetchAll(db, sql: """
            SELECT files.original_name, files.size, messages.id, messages.room_id, messages.body, messages.created_at,
                   users.nickname, messages.thread_root_id
            FROM files CROSS JOIN message_files ON message_files.file_id = files.id
            CROSS JOIN messages ON messages.id = message_files.message_id
            LEFT JOIN users ON users.id = messages.author_id
            WHERE lower(files.original_name) LIKE ? ESCAPE '\\' AND messages.deleted_at IS NULL
              AND messages.room_id IN (\(databaseQuestionMarks(count: roomIds.count)))
            ORDER BY messages.id DESC LIMIT ?
            """, arguments: StatementArguments([pattern]) + StatementArguments(roomIds) + [limit])
            .map { row in FoundFile(name: row["original_name"], size: row["size"], message: Self.found(row)) }
    }

    func messages(matching query: String, roomIds: [Int64], beforeId: Int64, limit: Int) throws -> [FoundMessage] {
        guard let terms = SearchTokenizer.query(query), !roomIds.isEmpty else { return [] }
        let scope = roomIds.map { "scope : " + SearchTokenizer.quote(SearchIndex.scopeToken(room: $0)) }.joined(separator: " OR ")
        let ids = try Int64.fetchAll(db, sql: """
            SELECT rowid FROM message_index WHERE message_index MATCH ? AND rowid < ? ORDER BY rowid DESC LIMIT ?
            """, arguments: ["(\(terms)) AND (\(scope))", beforeId, limit])
        guard !ids.isEmpty else { return [] }
        return try Row.fetchAll(db, sql: """
            SELECT messages.id, messages.room_id, messages.body, messages.created_at, users.nickname, messages.thread_root_id
            FROM messages LEFT JOIN users ON users.id = messages.author_id
            WHERE messages.id IN (\(databaseQuestionMarks(count: ids.count))) ORDER BY messages.id DESC
            """, arguments: StatementArguments(ids)).map(Self.found)
    }

    private static func found(_ row: Row) -> FoundMessage {
        FoundMessage(id: row["id"], roomId: row["room_id"], body: row["body"], createdAt: row["created_at"],
                     authorNickname: row["nickname"], threadRootId: row["thread_root_id"])
    }
}

extension SearchService.ChannelHit: FetchableRecord {}
extension SearchService.MemberHit: FetchableRecord {}
