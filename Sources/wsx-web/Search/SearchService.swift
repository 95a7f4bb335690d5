import Foundation
import Views
import GRDB

/// Search in a workspace: channels (name, description), members (nickname, email) and messages
/// of the rooms the person is in. Newest messages first (keyset paging by id: ordering by rank
/// is far too slow for a one-syllable query that matches much of a large workspace).
struct SearchService: Sendable {
    let database: AppDatabase

    static let queryLimit = TextLimit(characters: 100)
    static let pageSize = 50

    struct ChannelHit: Sendable, FetchableRecord, Decodable {
        let id: Int64
        let name: String
        let description: String
    }

    struct MemberHit: Sendable, FetchableRecord, Decodable {
        let id: Int64
        let nickname: String
        let email: String
    }

    struct MessageHit: Sendable {
        let id: Int64
        let roomId: Int64
        let roomName: String
        let roomPath: String
        let isChannel: Bool
        let author: String
        let body: String
        let createdAt: Date
        /// A reply's thread (its result links there).
        var threadRootId: Int64?
    }

    /// A file whose name matches, with the message it came in.
    struct FileHit: Sendable {
        let name: String
        let size: Int
        let message: MessageHit
    }

    /// Where each section continues, when it has more.
    struct Cursors: Sendable, Equatable {
        var channelsAfter: Int64?
        var membersAfter: Int64?
        var messagesBefore: Int64?
    }

    struct Results: Sendable {
        var channels: [ChannelHit] = []
        var members: [MemberHit] = []
        var messages: [MessageHit] = []
        /// The newest files whose names match (`pageSize` at most).
        var files: [FileHit] = []
        /// Set for a section that has more than one page.
        var next = Cursors()
    }

    /// Searches for `query` (already NFC and trimmed, at most 100 characters).
    func search(_ access: WorkspaceAccess, query: String, from cursors: Cursors) async throws -> Results {
        let contains = ContainsPattern.of(query.lowercased())
        let size = Self.pageSize
        return try database.read { db in
            var results = Results()
            let channels = try ChannelHit.fetchAll(db, sql: """
                SELECT id, name, description FROM rooms
                WHERE workspace_id = ? AND kind = 'channel' AND id > ? AND (name_key LIKE ? ESCAPE '\\' OR lower(description) LIKE ? ESCAPE '\\')
                  AND (visibility = 'public' OR EXISTS (SELECT 1 FROM room_members WHERE room_id = rooms.id AND user_id = ?))
                ORDER BY id LIMIT ?
                """, arguments: [access.workspaceId, cursors.channelsAfter ?? 0, contains, contains, access.userId, size + 1])
            results.channels = Array(channels.prefix(size))
            if channels.count > size { results.next.channelsAfter = results.channels.last?.id }

            let members = try MemberHit.fetchAll(db, sql: """
                SELECT users.id, users.nickname, users.email FROM users
                JOIN workspace_members ON workspace_members.user_id = users.id AND workspace_members.workspace_id = ?
                WHERE users.id > ? AND (lower(users.nickname) LIKE ? ESCAPE '\\' OR users.email_key LIKE ? ESCAPE '\\')
                ORDER BY users.id LIMIT ?
                """, arguments: [access.workspaceId, cursors.membersAfter ?? 0, contains, contains, size + 1])
            results.members = Array(members.prefix(size))
            if members.count > size { results.next.membersAfter = results.members.last?.id }

            let rooms = try RoomDirectory.rooms(db, workspaceId: access.workspaceId, userId: access.userId, lastMessages: false)
            let byRoom = Dictionary(uniqueKeysWithValues: rooms.map { ($0.id, $0) })
            func hit(_ row: Row) -> MessageHit? {
                guard let room = byRoom[row["room_id"]] else { return nil }   // never outside the person's rooms
                return MessageHit(id: row["id"], roomId: room.id, roomName: room.name, roomPath: room.url, isChannel: room.isChannel,
                                  author: row["nickname"] ?? "—", body: row["body"], createdAt: row["created_at"],
                                  threadRootId: row["thread_root_id"])
            }
            if cursors.messagesBefore == nil, !rooms.isEmpty {
                // Files by name, from the files (far fewer than messages) to their messages.
                let fileRows = try Row.fetchAll(db, sql: """
                    SELECT files.original_name, files.size, messages.id, messages.room_id, messages.body, messages.created_at,
                           users.nickname, messages.thread_root_id
                    FROM files CROSS JOIN message_files ON message_files.file_id = files.id
                    CROSS JOIN messages ON messages.id = message_files.message_id
                    LEFT JOIN users ON users.id = messages.author_id
                    WHERE lower(files.original_name) LIKE ? ESCAPE '\\' AND messages.deleted_at IS NULL
                      AND messages.room_id IN (\(databaseQuestionMarks(count: rooms.count)))
                    ORDER BY messages.id DESC LIMIT ?
                    """, arguments: StatementArguments([contains]) + StatementArguments(rooms.map(\.id)) + [size])
                results.files = fileRows.compactMap { row in
                    hit(row).map { FileHit(name: row["original_name"], size: row["size"], message: $0) }
                }
            }
            guard let terms = SearchTokenizer.query(query), !rooms.isEmpty else { return results }
            let scope = rooms.map { "scope : " + SearchTokenizer.quote(SearchIndex.scopeToken(room: $0.id)) }.joined(separator: " OR ")
            let ids = try Int64.fetchAll(db, sql: """
                SELECT rowid FROM message_index WHERE message_index MATCH ? AND rowid < ? ORDER BY rowid DESC LIMIT ?
                """, arguments: ["(\(terms)) AND (\(scope))", cursors.messagesBefore ?? Int64.max, size + 1])
            let page = Array(ids.prefix(size))
            if ids.count > size { results.next.messagesBefore = page.last }
            guard !page.isEmpty else { return results }
            let rows = try Row.fetchAll(db, sql: """
                SELECT messages.id, messages.room_id, messages.body, messages.created_at, users.nickname, messages.thread_root_id
                FROM messages LEFT JOIN users ON users.id = messages.author_id
                WHERE messages.id IN (\(databaseQuestionMarks(count: page.count))) ORDER BY messages.id DESC
                """, arguments: StatementArguments(page))
            results.messages = rows.compactMap(hit)
            return results
        }
    }

    /// An excerpt of a message around the first match, as plain text (its Markdown read as
    /// people see it: `**필수**` is 필수), escaped, every match wrapped in `<mark>`.
    static func highlighted(_ text: String, query: String, radius: Int = 60) -> String {
        let terms = SearchTokenizer.runs(query).map { String($0.characters) }.filter { !$0.isEmpty }
        let flat = MessageHTML.render(text, members: .none).plain.replacingOccurrences(of: "\n", with: " ")
        let options: String.CompareOptions = [.caseInsensitive]
        var start = flat.startIndex, end = flat.endIndex
        if let first = terms.compactMap({ flat.range(of: $0, options: options) }).min(by: { $0.lowerBound < $1.lowerBound }) {
            start = flat.index(first.lowerBound, offsetBy: -radius, limitedBy: flat.startIndex) ?? flat.startIndex
            end = flat.index(first.upperBound, offsetBy: radius * 2, limitedBy: flat.endIndex) ?? flat.endIndex
        } else {
            end = flat.index(flat.startIndex, offsetBy: radius * 3, limitedBy: flat.endIndex) ?? flat.endIndex
        }
        let excerpt = flat[start..<end]
        var html = start > flat.startIndex ? "…" : ""
        var index = excerpt.startIndex
        while index < excerpt.endIndex {
            let match = terms.compactMap { excerpt.range(of: $0, options: options, range: index..<excerpt.endIndex) }
                .min { $0.lowerBound < $1.lowerBound || ($0.lowerBound == $1.lowerBound && $0.upperBound > $1.upperBound) }
            guard let match else {
                html += HTMLEscaping.escape(excerpt[index...])
                break
            }
            html += HTMLEscaping.escape(excerpt[index..<match.lowerBound])
            html += "<mark>" + HTMLEscaping.escape(excerpt[match]) + "</mark>"
            index = match.upperBound
        }
        return html + (end < flat.endIndex ? "…" : "")
    }
}
