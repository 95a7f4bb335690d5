import Foundation
import PostgresNIO
import Views

/// `MessageStore` on PostgreSQL.
struct PostgresMessageStore: MessageStore {
    let session: PostgresSession

    func visible(id: Int64, _ access: WorkspaceAccess) throws -> (Message, Room) {
        guard let message = try message(id: id) else { throw AppError.notFound }
        return (message, try PostgresRoomStore(session: session).memberRoom(id: message.roomId, access))
    }

    func writable(id: Int64, _ access: WorkspaceAccess) throws -> (Message, Room) {
        try Self.changeable(visible(id: id, access))
    }

    func row(id: Int64, hasFiles: Bool) throws -> MessageRow {
        guard let row = try session.run("""
            SELECT \(unescaped: MessageRow.columns) FROM messages LEFT JOIN users ON users.id = messages.author_id WHERE messages.id = \(id)
            """).first.map(MessageRow.init(postgres:)) else { throw AppError.notFound }
        return hasFiles ? try withAttachments([row])[0] : row
    }

    func rows(roomId: Int64, ids: [Int64]) throws -> [MessageRow] {
        guard !ids.isEmpty else { return [] }
        return try withAttachments(session.run("""
            SELECT \(unescaped: MessageRow.columns) FROM messages LEFT JOIN users ON users.id = messages.author_id
            WHERE messages.room_id = \(roomId) AND messages.id = ANY(\(ids)) ORDER BY messages.id
            """).map(MessageRow.init(postgres:)))
    }

    func rows(ids: [Int64]) throws -> [MessageRow] {
        guard !ids.isEmpty else { return [] }
        return try withAttachments(session.run("""
            SELECT \(unescaped: MessageRow.columns) FROM messages LEFT JOIN users ON users.id = messages.author_id
            WHERE messages.id = ANY(\(ids))
            """).map(MessageRow.init(postgres:)))
    }

    func chats(roomId: Int64, after: (date: Date, id: Int64)?, limit: Int) throws -> [MessageRow] {
        // Compared to the millisecond, as the apps read and send times back.
        let rows = try session.run("""
            SELECT \(unescaped: MessageRow.columns) FROM messages LEFT JOIN users ON users.id = messages.author_id
            WHERE messages.room_id = \(roomId) AND messages.in_timeline AND messages.deleted_at IS NULL
              AND (\(after == nil) OR date_trunc('milliseconds', messages.created_at) > \(after?.date)
                   OR (date_trunc('milliseconds', messages.created_at) = \(after?.date) AND messages.id > \(after?.id)))
            ORDER BY date_trunc('milliseconds', messages.created_at), messages.id LIMIT \(limit)
            """)
        return try withAttachments(rows.map(MessageRow.init(postgres:)))
    }

    func chatCount(roomId: Int64, after: Date?, excluding authorId: Int64) throws -> Int {
        try session.run("""
            SELECT COUNT(*) FROM messages WHERE room_id = \(roomId) AND in_timeline AND deleted_at IS NULL
                AND author_id IS DISTINCT FROM \(authorId)
                AND (\(after == nil) OR date_trunc('milliseconds', created_at) > \(after))
            """).first?.decode(Int.self) ?? 0
    }

    private func withAttachments(_ rows: [MessageRow]) throws -> [MessageRow] {
        try PostgresFileStore(session: session).withAttachments(rows)
    }

    func message(id: Int64) throws -> Message? {
        try session.run("SELECT \(unescaped: Message.postgresColumns) FROM messages WHERE id = \(id)").first.map(Message.init(postgres:))
    }

    func stamp(id: Int64) throws -> MessageStamp? {
        try session.run("""
            SELECT \(unescaped: MessageStamp.columns) FROM messages LEFT JOIN users ON users.id = messages.author_id WHERE messages.id = \(id)
            """).first.map(MessageStamp.init(postgres:))
    }

    func timeline(roomId: Int64, anchor: MessageAnchor, size: Int) throws -> MessagePage {
        /// Stamps of the room's timeline on one side of `cursor` (all when nil), nearest first.
        func fetch(older: Bool, than cursor: Int64?, including: Bool = false, limit: Int) throws -> [MessageStamp] {
            let bound = cursor ?? (older ? .max : 0)
            let condition = switch (older, including) {
            case (true, false): "messages.id < $2"
            case (true, true): "messages.id <= $2"
            case (false, false): "messages.id > $2"
            case (false, true): "messages.id >= $2"
            }
            return try session.run(numbered: """
                SELECT \(MessageStamp.columns) FROM messages LEFT JOIN users ON users.id = messages.author_id
                WHERE messages.room_id = $1 AND messages.in_timeline AND \(condition)
                ORDER BY messages.id \(older ? "DESC" : "ASC") LIMIT $3
                """, binding: roomId, bound, limit).map(MessageStamp.init(postgres:))
        }
        func exists(older: Bool, than cursor: Int64, including: Bool) throws -> Bool {
            try !fetch(older: older, than: cursor, including: including, limit: 1).isEmpty
        }
        switch anchor {
        case .latest:
            let rows = try fetch(older: true, than: nil, limit: size + 1)
            return MessagePage(messages: rows.prefix(size).reversed(), hasOlder: rows.count > size, hasNewer: false)
        case .before(let id):
            let rows = try fetch(older: true, than: id, limit: size + 1)
            return MessagePage(messages: rows.prefix(size).reversed(), hasOlder: rows.count > size,
                               hasNewer: try exists(older: false, than: id, including: true))
        case .after(let id):
            let rows = try fetch(older: false, than: id, limit: size + 1)
            return MessagePage(messages: Array(rows.prefix(size)), hasOlder: try exists(older: true, than: id, including: true),
                               hasNewer: rows.count > size)
        case .around(let id):
            let half = size / 2
            let older = try fetch(older: true, than: id, limit: half + 1)
            let newer = try fetch(older: false, than: id, including: true, limit: half + 1)
            return MessagePage(messages: older.prefix(half).reversed() + newer.prefix(half),
                               hasOlder: older.count > half, hasNewer: newer.count > half)
        }
    }

    func newestId(roomId: Int64) throws -> Int64 {
        try session.run("SELECT MAX(id) FROM messages WHERE room_id = \(roomId)").first?.decode(Int64?.self) ?? 0
    }

    func posted(authorId: Int64, clientId: String) throws -> Int64? {
        try session.run("SELECT id FROM messages WHERE author_id = \(authorId) AND client_id = \(clientId)").first?.decode(Int64.self)
    }

    func insert(roomId: Int64, authorId: Int64, text: String, html: String, at now: Date, clientId: String?,
                thread: ThreadPlacement?) throws -> Int64 {
        try session.run("""
            INSERT INTO messages (room_id, author_id, body, body_html, created_at, edited_at, client_id, thread_root_id, in_timeline)
            VALUES (\(roomId), \(authorId), \(text), \(html), \(now), NULL, \(clientId), \(thread?.rootId), \(thread?.alsoInRoom ?? true))
            RETURNING id
            """)[0].decode(Int64.self)
    }

    func attach(fileIds: [Int64], to messageId: Int64) throws {
        guard !fileIds.isEmpty else { return }
        try session.run("""
            INSERT INTO message_files (message_id, file_id, position)
            SELECT \(messageId), file_id, position - 1 FROM unnest(\(fileIds)::bigint[]) WITH ORDINALITY AS attached(file_id, position)
            """)
    }

    func editCount(id: Int64) throws -> Int {
        try session.run("SELECT edit_count FROM messages WHERE id = \(id)").first?.decode(Int.self) ?? 0
    }

    func applyEdit(id: Int64, text: String, html: String, editedAt: Date) throws {
        try session.run("""
            UPDATE messages SET body = \(text), body_html = \(html), edited_at = \(editedAt), edit_count = edit_count + 1 WHERE id = \(id)
            """)
    }

    func delete(id: Int64) throws {
        try session.run("DELETE FROM messages WHERE id = \(id)")
    }

    func leavePlaceholder(id: Int64, at now: Date) throws {
        try session.run("UPDATE messages SET body = '', body_html = '', deleted_at = \(now), edited_at = \(now) WHERE id = \(id)")
        for table in ["message_files", "reactions", "pins", "saved_messages", "mentions", "link_previews", "message_search"] {
            try session.run("DELETE FROM \(unescaped: table) WHERE message_id = \(id)")
        }
    }

    func addMentions(messageId: Int64, userIds: [Int64]) throws {
        guard !userIds.isEmpty else { return }
        try session.run("""
            INSERT INTO mentions (user_id, message_id) SELECT unnest(\(userIds)::bigint[]), \(messageId) ON CONFLICT DO NOTHING
            """)
    }

    func removeMentions(messageId: Int64) throws {
        try session.run("DELETE FROM mentions WHERE message_id = \(messageId)")
    }

    func memberNicknames(roomId: Int64) throws -> [String: Int64] {
        var map: [String: Int64] = [:]
        for row in try session.run("""
            SELECT users.id, users.nickname FROM users JOIN room_members ON room_members.user_id = users.id
            WHERE room_members.room_id = \(roomId)
            """) {
            let (id, nickname) = try row.decode((Int64, String).self)
            map[nickname] = min(map[nickname] ?? .max, id)
        }
        return map
    }

    func workspaceNicknames(roomId: Int64) throws -> [Int64: String] {
        let rows = try session.run("""
            SELECT users.id, users.nickname FROM users
            JOIN workspace_members ON workspace_members.user_id = users.id
            JOIN rooms ON rooms.workspace_id = workspace_members.workspace_id
            WHERE rooms.id = \(roomId)
            """)
        return Dictionary(try rows.map { try $0.decode((Int64, String).self) }, uniquingKeysWith: { first, _ in first })
    }

    func publicChannels(workspaceId: Int64) throws -> [String: Int64] {
        // By id, so the first of two that share a name (an imported one, say) wins, as on SQLite.
        let rows = try session.run("""
            SELECT name, id FROM rooms WHERE workspace_id = \(workspaceId) AND kind = 'channel' AND visibility = 'public' ORDER BY id
            """)
        return Dictionary(try rows.map { try $0.decode((String, Int64).self) }, uniquingKeysWith: { first, _ in first })
    }

    func collected(in list: MessageList, userId: Int64, workspaceId: Int64, limit: Int) throws -> [CollectedMessage] {
        let order = switch list {
        case .mentions: "listed.message_id DESC"
        case .saved: "listed.created_at DESC, listed.message_id DESC"
        }
        let rows = try session.run("""
            SELECT \(unescaped: MessageRow.columns)
            FROM \(unescaped: list.rawValue) AS listed
            JOIN messages ON messages.id = listed.message_id
            JOIN rooms ON rooms.id = messages.room_id AND rooms.workspace_id = \(workspaceId)
            JOIN room_members ON room_members.room_id = rooms.id AND room_members.user_id = listed.user_id
            LEFT JOIN users ON users.id = messages.author_id
            WHERE listed.user_id = \(userId)
            ORDER BY \(unescaped: order) LIMIT \(limit)
            """).map(MessageRow.init(postgres:))
        return try collect(withAttachments(rows), for: userId)
    }

    func collect(_ rows: [MessageRow], for userId: Int64) throws -> [CollectedMessage] {
        let roomIds = Array(Set(rows.map(\.roomId)))
        let rooms = try session.run("SELECT \(unescaped: Room.postgresColumns) FROM rooms WHERE rooms.id = ANY(\(roomIds))")
            .map(Room.init(postgres:)).reduce(into: [Int64: Room]()) { $0[$1.id!] = $1 }
        let partners = CollectedMessage.partnerIds(in: rooms.values, for: userId)
        let names = try session.run("SELECT id, nickname FROM users WHERE id = ANY(\(partners))")
            .reduce(into: [Int64: String]()) { names, row in
                let (id, nickname) = try row.decode((Int64, String).self)
                names[id] = nickname
            }
        let groups = try PostgresRoomStore(session: session).groupMembers(of: rooms.values.filter { $0.kind == .group }.map { $0.id! })
        return CollectedMessage.named(rows, rooms: rooms, partnerNames: names, groups: groups, for: userId)
    }
}

