import Foundation
import GRDB
import Views

/// `MessageStore` on SQLite.
struct SQLiteMessageStore: MessageStore {
    let db: Database

    func visible(id: Int64, _ access: WorkspaceAccess) throws -> (Message, Room) {
        guard let message = try message(id: id) else { throw AppError.notFound }
        return (message, try SQLiteRoomStore(db: db).memberRoom(id: message.roomId, access))
    }

    func writable(id: Int64, _ access: WorkspaceAccess) throws -> (Message, Room) {
        try Self.changeable(visible(id: id, access))
    }

    func row(id: Int64, hasFiles: Bool) throws -> MessageRow {
        guard let row = try MessageRow.fetchOne(db.cachedStatement(sql: """
            SELECT \(MessageRow.columns) FROM messages LEFT JOIN users ON users.id = messages.author_id WHERE messages.id = ?
            """), arguments: [id]) else { throw AppError.notFound }
        return hasFiles ? try withAttachments([row])[0] : row
    }

    func rows(roomId: Int64, ids: [Int64]) throws -> [MessageRow] {
        guard !ids.isEmpty else { return [] }
        let rows = try MessageRow.fetchAll(db, sql: """
            SELECT \(MessageRow.columns) FROM messages LEFT JOIN users ON users.id = messages.author_id
            WHERE messages.room_id = ? AND messages.id IN (\(databaseQuestionMarks(count: ids.count))) ORDER BY messages.id
            """, arguments: [roomId] + StatementArguments(ids))
        return try withAttachments(rows)
    }

    func rows(ids: [Int64]) throws -> [MessageRow] {
        guard !ids.isEmpty else { return [] }
        let rows = try MessageRow.fetchAll(db, sql: """
            SELECT \(MessageRow.columns) FROM messages LEFT JOIN users ON users.id = messages.author_id
            WHERE messages.id IN (\(databaseQuestionMarks(count: ids.count)))
            """, arguments: StatementArguments(ids))
        return try withAttachments(rows)
    }

    /// `rows` with their files.
    func chats(roomId: Int64, after: (date: Date, id: Int64)?, limit: Int) throws -> [MessageRow] {
        var arguments: StatementArguments = [roomId]
        var condition = ""
        if let after {
            let time = Timestamps.database(after.date)
            condition = "AND (messages.created_at > ? OR (messages.created_at = ? AND messages.id > ?))"
            arguments += [time, time, after.id]
        }
        let rows = try MessageRow.fetchAll(db.cachedStatement(sql: """
            SELECT \(MessageRow.columns) FROM messages LEFT JOIN users ON users.id = messages.author_id
            WHERE messages.room_id = ? AND messages.in_timeline = 1 AND messages.deleted_at IS NULL \(condition)
            ORDER BY messages.created_at, messages.id LIMIT \(limit)
            """), arguments: arguments)
        return try withAttachments(rows)
    }

    func chatCount(roomId: Int64, after: Date?, excluding authorId: Int64) throws -> Int {
        try Int.fetchOne(db, sql: """
            SELECT COUNT(*) FROM messages WHERE room_id = ? AND in_timeline = 1 AND deleted_at IS NULL
                AND (author_id IS NULL OR author_id <> ?) AND created_at > ?
            """, arguments: [roomId, authorId, after.map(Timestamps.database) ?? ""]) ?? 0
    }

    func withAttachments(_ rows: [MessageRow]) throws -> [MessageRow] {
        let files = try SQLiteFileStore(db: db).attachments(messageIds: rows.map(\.id))
        return rows.map { row in
            var row = row
            row.attachments = files[row.id] ?? []
            return row
        }
    }

    func message(id: Int64) throws -> Message? {
        try Message.fetchOne(db, key: id)
    }

    func stamp(id: Int64) throws -> MessageStamp? {
        try MessageStamp.fetchOne(db.cachedStatement(sql: """
            SELECT \(MessageStamp.columns) FROM messages LEFT JOIN users ON users.id = messages.author_id WHERE messages.id = ?
            """), arguments: [id])
    }

    func timeline(roomId: Int64, anchor: MessageAnchor, size: Int) throws -> MessagePage {
        let select = """
            SELECT \(MessageStamp.columns) FROM messages LEFT JOIN users ON users.id = messages.author_id
            WHERE messages.room_id = ? AND messages.in_timeline = 1
            """
        func fetch(_ condition: String, _ order: String, _ cursor: Int64?, limit: Int) throws -> [MessageStamp] {
            var arguments: StatementArguments = [roomId]
            if let cursor { arguments += [cursor] }
            return try MessageStamp.fetchAll(
                db.cachedStatement(sql: "\(select) \(condition) ORDER BY messages.id \(order) LIMIT \(limit)"),
                arguments: arguments)
        }
        func exists(_ condition: String, _ cursor: Int64) throws -> Bool {
            try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM messages WHERE room_id = ? AND in_timeline = 1 \(condition))"),
                              arguments: [roomId, cursor]) ?? false
        }
        switch anchor {
        case .latest:
            let rows = try fetch("", "DESC", nil, limit: size + 1)
            return MessagePage(messages: rows.prefix(size).reversed(), hasOlder: rows.count > size, hasNewer: false)
        case .before(let id):
            let rows = try fetch("AND messages.id < ?", "DESC", id, limit: size + 1)
            return MessagePage(messages: rows.prefix(size).reversed(), hasOlder: rows.count > size,
                               hasNewer: try exists("AND id >= ?", id))
        case .after(let id):
            let rows = try fetch("AND messages.id > ?", "ASC", id, limit: size + 1)
            return MessagePage(messages: Array(rows.prefix(size)), hasOlder: try exists("AND id <= ?", id),
                               hasNewer: rows.count > size)
        case .around(let id):
            let half = size / 2
            let older = try fetch("AND messages.id < ?", "DESC", id, limit: half + 1)
            let newer = try fetch("AND messages.id >= ?", "ASC", id, limit: half + 1)
            return MessagePage(messages: older.prefix(half).reversed() + newer.prefix(half),
                               hasOlder: older.count > half, hasNewer: newer.count > half)
        }
    }

    func newestId(roomId: Int64) throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT MAX(id) FROM messages WHERE room_id = ?"), arguments: [roomId]) ?? 0
    }

    func posted(authorId: Int64, clientId: String) throws -> Int64? {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT id FROM messages WHERE author_id = ? AND client_id = ?"),
                           arguments: [authorId, clientId])
    }

    /// A cached statement rather than `Message.inserted`: posts run this in the writer's turn,
    /// which every post waits for, and the record's Codable encoding and column lookup cost more
    /// than the insert itself (perf).
    func insert(roomId: Int64, authorId: Int64, text: String, html: String, at now: Date, clientId: String?,
                thread: ThreadPlacement?) throws -> Int64 {
        try db.cachedStatement(sql: """
            INSERT INTO messages (room_id, author_id, body, body_html, created_at, edited_at, client_id, thread_root_id, in_timeline)
            VALUES (?, ?, ?, ?, ?, NULL, ?, ?, ?)
            """).execute(arguments: [roomId, authorId, text, html, Timestamps.database(now), clientId, thread?.rootId,
                                     thread?.alsoInRoom ?? true])
        return db.lastInsertedRowID
    }

    func attach(fileIds: [Int64], to messageId: Int64) throws {
        for (position, fileId) in fileIds.enumerated() {
            try db.execute(sql: "INSERT INTO message_files (message_id, file_id, position) VALUES (?, ?, ?)",
                           arguments: [messageId, fileId, position])
        }
    }

    func editCount(id: Int64) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT edit_count FROM messages WHERE id = ?", arguments: [id]) ?? 0
    }

    func applyEdit(id: Int64, text: String, html: String, editedAt: Date) throws {
        try Message.filter(key: id).updateAll(db, Message.CodingKeys.body.set(to: text),
                                              Message.CodingKeys.bodyHtml.set(to: html),
                                              Message.CodingKeys.editedAt.set(to: editedAt),
                                              Column("edit_count") += 1)
    }

    func delete(id: Int64) throws {
        try Message.deleteOne(db, key: id)
    }

    func leavePlaceholder(id: Int64, at now: Date) throws {
        try db.execute(sql: """
            UPDATE messages SET body = '', body_html = '', deleted_at = ?, edited_at = ? WHERE id = ?;
            DELETE FROM message_files WHERE message_id = ?;
            DELETE FROM reactions WHERE message_id = ?;
            DELETE FROM pins WHERE message_id = ?;
            DELETE FROM saved_messages WHERE message_id = ?;
            DELETE FROM mentions WHERE message_id = ?;
            DELETE FROM link_previews WHERE message_id = ?;
            DELETE FROM message_index WHERE rowid = ?;
            """, arguments: [now, now, id, id, id, id, id, id, id, id])
    }

    func addMentions(messageId: Int64, userIds: [Int64]) throws {
        for id in userIds {
            try db.cachedStatement(sql: "INSERT INTO mentions (user_id, message_id) VALUES (?, ?) ON CONFLICT DO NOTHING")
                .execute(arguments: [id, messageId])
        }
    }

    func removeMentions(messageId: Int64) throws {
        try db.execute(sql: "DELETE FROM mentions WHERE message_id = ?", arguments: [messageId])
    }

    func memberNicknames(roomId: Int64) throws -> [String: Int64] {
        let rows = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT users.id, users.nickname FROM users JOIN room_members ON room_members.user_id = users.id
            WHERE room_members.room_id = ?
            """), arguments: [roomId])
        var map: [String: Int64] = [:]
        for row in rows { map[row["nickname"]] = min(map[row["nickname"]] ?? .max, row["id"]) }
        return map
    }

    func workspaceNicknames(roomId: Int64) throws -> [Int64: String] {
        let rows = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT users.id, users.nickname FROM users
            JOIN workspace_members ON workspace_members.user_id = users.id
            JOIN rooms ON rooms.workspace_id = workspace_members.workspace_id
            WHERE rooms.id = ?
            """), arguments: [roomId])
        return Dictionary(rows.map { ($0["id"] as Int64, $0["nickname"] as String) }, uniquingKeysWith: { first, _ in first })
    }

    func publicChannels(workspaceId: Int64) throws -> [String: Int64] {
        let rows = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT id, name FROM rooms WHERE workspace_id = ? AND kind = 'channel' AND visibility = 'public'
            """), arguments: [workspaceId])
        return Dictionary(rows.map { ($0["name"] as String, $0["id"] as Int64) }, uniquingKeysWith: { first, _ in first })
    }

    func collected(in list: MessageList, userId: Int64, workspaceId: Int64, limit: Int) throws -> [CollectedMessage] {
        let order = switch list {
        case .mentions: "listed.message_id DESC"
        case .saved: "listed.created_at DESC, listed.message_id DESC"
        }
        let rows = try MessageRow.fetchAll(db, sql: """
            SELECT \(MessageRow.columns)
            FROM \(list.rawValue) AS listed
            JOIN messages ON messages.id = listed.message_id
            JOIN rooms ON rooms.id = messages.room_id AND rooms.workspace_id = ?
            JOIN room_members ON room_members.room_id = rooms.id AND room_members.user_id = listed.user_id
            LEFT JOIN users ON users.id = messages.author_id
            WHERE listed.user_id = ?
            ORDER BY \(order) LIMIT ?
            """, arguments: [workspaceId, userId, limit])
        return try collect(withAttachments(rows), for: userId)
    }

    func collect(_ rows: [MessageRow], for userId: Int64) throws -> [CollectedMessage] {
        let rooms = try Room.fetchAll(db, keys: Set(rows.map(\.roomId))).reduce(into: [Int64: Room]()) { $0[$1.id!] = $1 }
        let partners = CollectedMessage.partnerIds(in: rooms.values, for: userId)
        let names = try User.fetchAll(db, keys: partners).reduce(into: [Int64: String]()) { $0[$1.id!] = $1.nickname }
        let groups = try GroupRooms.members(db, of: rooms.values.filter { $0.kind == .group }.map { $0.id! })
        return CollectedMessage.named(rows, rooms: rooms, partnerNames: names, groups: groups, for: userId)
    }
}

/// `SavedMessageStore` on SQLite.
struct SQLiteSavedMessageStore: SavedMessageStore {
    let db: Database

    func add(messageId: Int64, userId: Int64, at now: Date) throws -> Bool {
        try db.execute(sql: "INSERT INTO saved_messages (user_id, message_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                       arguments: [userId, messageId, Timestamps.database(now)])
        return db.changesCount > 0
    }

    func remove(messageId: Int64, userId: Int64) throws -> Bool {
        try db.execute(sql: "DELETE FROM saved_messages WHERE user_id = ? AND message_id = ?", arguments: [userId, messageId])
        return db.changesCount > 0
    }

    func messageIds(userId: Int64) throws -> Set<Int64> {
        Set(try Int64.fetchAll(db.cachedStatement(sql: "SELECT message_id FROM saved_messages WHERE user_id = ?"),
                               arguments: [userId]))
    }
}

/// `ReactionStore` on SQLite.
struct SQLiteReactionStore: ReactionStore {
    let db: Database

    func remove(messageId: Int64, emoji: String, userId: Int64) throws -> Bool {
        try db.execute(sql: "DELETE FROM reactions WHERE message_id = ? AND emoji = ? AND user_id = ?",
                       arguments: [messageId, emoji, userId])
        return db.changesCount > 0
    }

    // Cached statements: a Slack import asks these for every message with reactions.
    func isUsed(messageId: Int64, emoji: String) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM reactions WHERE message_id = ? AND emoji = ?)"),
                          arguments: [messageId, emoji]) ?? false
    }

    func emojiCount(messageId: Int64) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(DISTINCT emoji) FROM reactions WHERE message_id = ?"),
                         arguments: [messageId]) ?? 0
    }

    func add(messageId: Int64, emoji: String, userId: Int64, at now: Date) throws {
        try db.execute(sql: "INSERT INTO reactions (message_id, user_id, emoji, created_at) VALUES (?, ?, ?, ?)",
                       arguments: [messageId, userId, emoji, Timestamps.database(now)])
    }

    func hasAny(messageId: Int64) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM reactions WHERE message_id = ?)", arguments: [messageId]) ?? false
    }

    func groups(messageIds: [Int64]) throws -> [Int64: [ReactionGroup]] {
        guard !messageIds.isEmpty else { return [:] }
        let rows = try Row.fetchAll(db, sql: """
            SELECT reactions.message_id, reactions.emoji, reactions.user_id, users.nickname
            FROM reactions JOIN users ON users.id = reactions.user_id
            WHERE reactions.message_id IN (\(databaseQuestionMarks(count: messageIds.count)))
            ORDER BY reactions.message_id, reactions.id
            """, arguments: StatementArguments(messageIds))
        return ReactionGroup.grouped(rows.map { (messageId: $0[0], emoji: $0[1], userId: $0[2], name: $0[3]) })
    }
}

/// `LinkPreviewStore` on SQLite.
struct SQLiteLinkPreviewStore: LinkPreviewStore {
    let db: Database

    func awaitsPreview(messageId: Int64) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM messages WHERE id = ?)", arguments: [messageId]) == true
            && Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM link_previews WHERE message_id = ?)", arguments: [messageId]) == false
    }

    func insert(_ preview: LinkPreview, at now: Date) throws {
        try db.execute(sql: """
            INSERT INTO link_previews (message_id, url, title, description, site_name, image_file_id, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """, arguments: [preview.messageId, preview.url, preview.title, preview.description, preview.siteName,
                             preview.imageFileId, now])
    }

    func remove(messageId: Int64) throws -> Bool {
        try db.execute(sql: "DELETE FROM link_previews WHERE message_id = ?", arguments: [messageId])
        return db.changesCount > 0
    }

    func previews(among messageIds: [Int64]) throws -> [Int64: LinkPreview] {
        guard !messageIds.isEmpty else { return [:] }
        let rows = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT message_id, url, title, description, site_name, image_file_id FROM link_previews
            WHERE message_id IN (\(databaseQuestionMarks(count: messageIds.count)))
            """), arguments: StatementArguments(messageIds))
        var found: [Int64: LinkPreview] = [:]
        for row in rows {
            let preview = LinkPreview(messageId: row[0], url: row[1], title: row[2], description: row[3], siteName: row[4],
                                      imageFileId: row[5])
            found[preview.messageId] = preview
        }
        return found
    }
}

/// `PinStore` on SQLite.
struct SQLitePinStore: PinStore {
    let db: Database

    func pin(messageId: Int64, roomId: Int64, by userId: Int64, at now: Date) throws -> Bool {
        try db.execute(sql: "INSERT INTO pins (message_id, room_id, pinned_by, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                       arguments: [messageId, roomId, userId, Timestamps.database(now)])
        return db.changesCount > 0
    }

    func unpin(messageId: Int64) throws -> Bool {
        try db.execute(sql: "DELETE FROM pins WHERE message_id = ?", arguments: [messageId])
        return db.changesCount > 0
    }

    func isPinned(messageId: Int64) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM pins WHERE message_id = ?)", arguments: [messageId]) ?? false
    }

    func count(roomId: Int64) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM pins WHERE room_id = ?"), arguments: [roomId]) ?? 0
    }

    func pinned(among messageIds: [Int64]) throws -> Set<Int64> {
        guard !messageIds.isEmpty else { return [] }
        return Set(try Int64.fetchAll(db, sql: "SELECT message_id FROM pins WHERE message_id IN (\(databaseQuestionMarks(count: messageIds.count)))",
                                      arguments: StatementArguments(messageIds)))
    }

    func rows(roomId: Int64) throws -> [MessageRow] {
        let rows = try MessageRow.fetchAll(db, sql: """
            SELECT \(MessageRow.columns)
            FROM pins JOIN messages ON messages.id = pins.message_id
            LEFT JOIN users ON users.id = messages.author_id
            WHERE pins.room_id = ? ORDER BY pins.created_at DESC, pins.message_id DESC
            """, arguments: [roomId])
        return try SQLiteMessageStore(db: db).withAttachments(rows)
    }
}

// Code that still holds a GRDB connection reaches the message store through these.

extension MessageService {
    static func row(_ db: Database, id: Int64, hasFiles: Bool = true) throws -> MessageRow {
        try SQLiteMessageStore(db: db).row(id: id, hasFiles: hasFiles)
    }

    static func rows(_ db: Database, roomId: Int64, ids: [Int64]) throws -> [MessageRow] {
        try SQLiteMessageStore(db: db).rows(roomId: roomId, ids: ids)
    }

    static func withAttachments(_ db: Database, _ rows: [MessageRow]) throws -> [MessageRow] {
        try SQLiteMessageStore(db: db).withAttachments(rows)
    }

    static func insert(_ db: Database, roomId: Int64, authorId: Int64, text: String, html: String, at now: Date,
                       clientId: String? = nil, thread: ThreadPlacement? = nil) throws -> Int64 {
        try SQLiteMessageStore(db: db).insert(roomId: roomId, authorId: authorId, text: text, html: html, at: now,
                                              clientId: clientId, thread: thread)
    }

    static func memberRoom(_ db: Database, _ access: WorkspaceAccess, id: Int64) throws -> Room {
        try SQLiteRoomStore(db: db).memberRoom(id: id, access)
    }

    static func visibleMessage(_ db: Database, id: Int64, _ access: WorkspaceAccess) throws -> (Message, Room) {
        try SQLiteMessageStore(db: db).visible(id: id, access)
    }

    static func writableMessage(_ db: Database, id: Int64, _ access: WorkspaceAccess) throws -> (Message, Room) {
        try SQLiteMessageStore(db: db).writable(id: id, access)
    }

    static func mentionDirectory(_ db: Database, roomId: Int64) throws -> MentionDirectory {
        try mentionDirectory(SQLiteTransaction.reading(db), roomId: roomId)
    }

    static func publicChannels(_ db: Database, workspaceId: Int64) throws -> ChannelDirectory {
        try publicChannels(SQLiteTransaction.reading(db), workspaceId: workspaceId)
    }

    static func nicknames(_ db: Database, roomId: Int64) throws -> [String: Int64] {
        try SQLiteMessageStore(db: db).memberNicknames(roomId: roomId)
    }

    static func recordMentions(_ db: Database, messageId: Int64, roomId: Int64, authorId: Int64,
                               rendered: MessageHTML.Rendered, online: Set<Int64>) throws -> [Int64] {
        try recordMentions(SQLiteTransaction(db, outbox: nil), messageId: messageId, roomId: roomId, authorId: authorId,
                           rendered: rendered, online: online)
    }

    /// A page of a room's messages (their stamps), read in `db`.
    static func page(_ db: Database, roomId: Int64, anchor: MessageAnchor, size: Int = pageSize) throws -> MessagePage {
        try page(SQLiteTransaction.reading(db), roomId: roomId, anchor: anchor, size: size)
    }
}
