import Foundation
import PostgresNIO

/// `SavedMessageStore` on PostgreSQL.
struct PostgresSavedMessageStore: SavedMessageStore {
    let session: PostgresSession

    func add(messageId: Int64, userId: Int64, at now: Date) throws -> Bool {
        try !session.run("""
            INSERT INTO saved_messages (user_id, message_id, created_at) VALUES (\(userId), \(messageId), \(now))
            ON CONFLICT DO NOTHING RETURNING message_id
            """).isEmpty
    }

    func remove(messageId: Int64, userId: Int64) throws -> Bool {
        try !session.run("DELETE FROM saved_messages WHERE user_id = \(userId) AND message_id = \(messageId) RETURNING message_id").isEmpty
    }

    func messageIds(userId: Int64) throws -> Set<Int64> {
        Set(try session.run("SELECT message_id FROM saved_messages WHERE user_id = \(userId)").map { try $0.decode(Int64.self) })
    }
}

/// `ReactionStore` on PostgreSQL.
struct PostgresReactionStore: ReactionStore {
    let session: PostgresSession

    func remove(messageId: Int64, emoji: String, userId: Int64) throws -> Bool {
        try !session.run("""
            DELETE FROM reactions WHERE message_id = \(messageId) AND emoji = \(emoji) AND user_id = \(userId) RETURNING id
            """).isEmpty
    }

    func isUsed(messageId: Int64, emoji: String) throws -> Bool {
        try !session.run("SELECT 1 FROM reactions WHERE message_id = \(messageId) AND emoji = \(emoji) LIMIT 1").isEmpty
    }

    func emojiCount(messageId: Int64) throws -> Int {
        try session.run("SELECT COUNT(DISTINCT emoji) FROM reactions WHERE message_id = \(messageId)")[0].decode(Int.self)
    }

    func add(messageId: Int64, emoji: String, userId: Int64, at now: Date) throws {
        try session.run("INSERT INTO reactions (message_id, user_id, emoji, created_at) VALUES (\(messageId), \(userId), \(emoji), \(now))")
    }

    func hasAny(messageId: Int64) throws -> Bool {
        try !session.run("SELECT 1 FROM reactions WHERE message_id = \(messageId) LIMIT 1").isEmpty
    }

    func groups(messageIds: [Int64]) throws -> [Int64: [ReactionGroup]] {
        guard !messageIds.isEmpty else { return [:] }
        return ReactionGroup.grouped(try session.run("""
            SELECT reactions.message_id, reactions.emoji, reactions.user_id, users.nickname
            FROM reactions JOIN users ON users.id = reactions.user_id
            WHERE reactions.message_id = ANY(\(messageIds))
            ORDER BY reactions.message_id, reactions.id
            """).map { row in
            let (messageId, emoji, userId, name) = try row.decode((Int64, String, Int64, String).self)
            return (messageId: messageId, emoji: emoji, userId: userId, name: name)
        })
    }
}

/// `LinkPreviewStore` on PostgreSQL.
struct PostgresLinkPreviewStore: LinkPreviewStore {
    let session: PostgresSession

    func awaitsPreview(messageId: Int64) throws -> Bool {
        try session.run("""
            SELECT EXISTS (SELECT 1 FROM messages WHERE id = \(messageId))
               AND NOT EXISTS (SELECT 1 FROM link_previews WHERE message_id = \(messageId))
            """)[0].decode(Bool.self)
    }

    func insert(_ preview: LinkPreview, at now: Date) throws {
        try session.run("""
            INSERT INTO link_previews (message_id, url, title, description, site_name, image_file_id, created_at)
            VALUES (\(preview.messageId), \(preview.url), \(preview.title), \(preview.description), \(preview.siteName),
                    \(preview.imageFileId), \(now))
            """)
    }

    func remove(messageId: Int64) throws -> Bool {
        try !session.run("DELETE FROM link_previews WHERE message_id = \(messageId) RETURNING message_id").isEmpty
    }

    func previews(among messageIds: [Int64]) throws -> [Int64: LinkPreview] {
        guard !messageIds.isEmpty else { return [:] }
        var found: [Int64: LinkPreview] = [:]
        for row in try session.run("""
            SELECT message_id, url, title, description, site_name, image_file_id FROM link_previews WHERE message_id = ANY(\(messageIds))
            """) {
            let (messageId, url, title, description, siteName, imageFileId) = try row.decode((Int64, String, String, String, String, Int64?).self)
            found[messageId] = LinkPreview(messageId: messageId, url: url, title: title, description: description, siteName: siteName,
                                           imageFileId: imageFileId)
        }
        return found
    }
}

/// `PinStore` on PostgreSQL.
struct PostgresPinStore: PinStore {
    let session: PostgresSession

    func pin(messageId: Int64, roomId: Int64, by userId: Int64, at now: Date) throws -> Bool {
        try !session.run("""
            INSERT INTO pins (message_id, room_id, pinned_by, created_at) VALUES (\(messageId), \(roomId), \(userId), \(now))
            ON CONFLICT DO NOTHING RETURNING message_id
            """).isEmpty
    }

    func unpin(messageId: Int64) throws -> Bool {
        try !session.run("DELETE FROM pins WHERE message_id = \(messageId) RETURNING message_id").isEmpty
    }

    func isPinned(messageId: Int64) throws -> Bool {
        try !session.run("SELECT 1 FROM pins WHERE message_id = \(messageId)").isEmpty
    }

    func count(roomId: Int64) throws -> Int {
        try session.run("SELECT COUNT(*) FROM pins WHERE room_id = \(roomId)")[0].decode(Int.self)
    }

    func pinned(among messageIds: [Int64]) throws -> Set<Int64> {
        guard !messageIds.isEmpty else { return [] }
        return Set(try session.run("SELECT message_id FROM pins WHERE message_id = ANY(\(messageIds))").map { try $0.decode(Int64.self) })
    }

    func rows(roomId: Int64) throws -> [MessageRow] {
        try PostgresFileStore(session: session).withAttachments(session.run("""
            SELECT \(unescaped: MessageRow.columns)
            FROM pins JOIN messages ON messages.id = pins.message_id
            LEFT JOIN users ON users.id = messages.author_id
            WHERE pins.room_id = \(roomId) ORDER BY pins.created_at DESC, pins.message_id DESC
            """).map(MessageRow.init(postgres:)))
    }
}
