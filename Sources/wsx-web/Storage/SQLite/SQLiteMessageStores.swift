import Foundation
import GRDB

/// `MessageStore` on SQLite.
struct SQLiteMessageStore: MessageStore {
    let db: Database

    func visible(id: Int64, _ access: WorkspaceAccess) throws -> (Message, Room) {
        guard let message = try Message.fetchOne(db, key: id) else { throw AppError.notFound }
        return (message, try SQLiteRoomStore(db: db).memberRoom(id: message.roomId, access))
    }

    func writable(id: Int64, _ access: WorkspaceAccess) throws -> (Message, Room) {
        let (message, room) = try visible(id: id, access)
        // A deleted root's placeholder is kept for its replies only: nothing more happens to it.
        if message.deletedAt != nil { throw AppError.notFound }
        if room.isArchived { throw AppError.conflict("error_channel_archived") }
        return (message, room)
    }

    func row(id: Int64) throws -> MessageRow {
        try MessageService.row(db, id: id)
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
        return try collect(MessageService.withAttachments(db, rows), for: userId)
    }

    func collect(_ rows: [MessageRow], for userId: Int64) throws -> [CollectedMessage] {
        let rooms = try Room.fetchAll(db, keys: Set(rows.map(\.roomId))).reduce(into: [Int64: Room]()) { $0[$1.id!] = $1 }
        let partners = Set(rooms.values.filter { $0.kind == .dm }.map { DirectRooms.partnerId(of: $0, for: userId) })
        let names = try User.fetchAll(db, keys: partners).reduce(into: [Int64: String]()) { $0[$1.id!] = $1.nickname }
        let groups = try GroupRooms.members(db, of: rooms.values.filter { $0.kind == .group }.map { $0.id! })
        return rows.compactMap { row in
            guard let room = rooms[row.roomId] else { return nil }
            let name: String? = switch room.kind {
            case .channel: nil
            case .dm: names[DirectRooms.partnerId(of: room, for: userId)]
            case .group: GroupRooms.title(groups[room.id!] ?? [], viewer: userId)
            }
            return CollectedMessage(message: row, room: room, conversationName: name)
        }
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

    func groups(messageIds: [Int64]) throws -> [Int64: [ReactionGroup]] {
        guard !messageIds.isEmpty else { return [:] }
        let rows = try Row.fetchAll(db, sql: """
            SELECT reactions.message_id, reactions.emoji, reactions.user_id, users.nickname
            FROM reactions JOIN users ON users.id = reactions.user_id
            WHERE reactions.message_id IN (\(databaseQuestionMarks(count: messageIds.count)))
            ORDER BY reactions.message_id, reactions.id
            """, arguments: StatementArguments(messageIds))
        var groups: [Int64: [ReactionGroup]] = [:]
        for row in rows {
            let messageId: Int64 = row[0], emoji: String = row[1], userId: Int64 = row[2], name: String = row[3]
            var list = groups[messageId] ?? []
            if let index = list.firstIndex(where: { $0.emoji == emoji }) {
                list[index].userIds.append(userId)
                list[index].names.append(name)
            } else {
                list.append(ReactionGroup(emoji: emoji, userIds: [userId], names: [name]))
            }
            groups[messageId] = list
        }
        return groups
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
        return try MessageService.withAttachments(db, rows)
    }
}
