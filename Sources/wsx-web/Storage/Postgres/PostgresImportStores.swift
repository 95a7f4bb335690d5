import Foundation
import PostgresNIO
import Views

/// `SlackImportStore` on PostgreSQL: `slack_ids`, and the import's and export's statements, on
/// the transaction's session (mentions and rendering go through the transaction's stores).
struct PostgresSlackImportStore: SlackImportStore {
    let tx: PostgresTransaction
    private var session: PostgresSession { tx.session }

    // MARK: Slack ids

    func localIds(workspaceId: Int64, kind: SlackIds.Kind) throws -> [String: Int64] {
        var found: [String: Int64] = [:]
        for (slackId, localId) in try pairs(workspaceId: workspaceId, kind: kind) { found[slackId] = localId }
        return found
    }

    func slackIds(workspaceId: Int64, kind: SlackIds.Kind) throws -> [Int64: String] {
        var found: [Int64: String] = [:]
        // One local row may have been read under two ids (two exports): the first stays.
        for (slackId, localId) in try pairs(workspaceId: workspaceId, kind: kind) where found[localId] == nil { found[localId] = slackId }
        return found
    }

    /// The kind's pairs in Slack id order (bytes): the order SQLite reads its table in (its key).
    private func pairs(workspaceId: Int64, kind: SlackIds.Kind) throws -> [(String, Int64)] {
        try session.run("""
            SELECT slack_id, local_id FROM slack_ids WHERE workspace_id = \(workspaceId) AND kind = \(kind.rawValue) ORDER BY slack_id COLLATE "C"
            """).map { try $0.decode((String, Int64).self) }
    }

    func localId(workspaceId: Int64, kind: SlackIds.Kind, slackId: String) throws -> Int64? {
        try session.run("""
            SELECT local_id FROM slack_ids WHERE workspace_id = \(workspaceId) AND kind = \(kind.rawValue) AND slack_id = \(slackId)
            """).first?.decode(Int64.self)
    }

    func messageKeys(workspaceId: Int64, conversation: String) throws -> [(key: String, localId: Int64)] {
        // Keys of the conversation sort between "C01/" and "C010" ("0" follows "/") in byte order.
        try session.run("""
            SELECT slack_id, local_id FROM slack_ids
            WHERE workspace_id = \(workspaceId) AND kind = 'message'
              AND slack_id COLLATE "C" >= \(conversation + "/") AND slack_id COLLATE "C" < \(conversation + "0")
            ORDER BY slack_id COLLATE "C"
            """).map { row in
            let (key, localId) = try row.decode((String, Int64).self)
            return (key: key, localId: localId)
        }
    }

    func remember(workspaceId: Int64, kind: SlackIds.Kind, slackId: String, localId: Int64) throws {
        try session.run("""
            INSERT INTO slack_ids (workspace_id, kind, slack_id, local_id) VALUES (\(workspaceId), \(kind.rawValue), \(slackId), \(localId))
            ON CONFLICT DO NOTHING
            """)
    }

    // MARK: Workspaces and people

    func workspace(ownerId: Int64, nameKey: String) throws -> Workspace? {
        try session.run("""
            SELECT \(unescaped: Workspace.postgresColumns) FROM workspaces WHERE owner_id = \(ownerId) AND name_key = \(nameKey)
            """).first.map(Workspace.init(postgres:))
    }

    func workspaceIds(nameKey: String) throws -> [Int64] {
        try session.run("SELECT id FROM workspaces WHERE name_key = \(nameKey) ORDER BY id").map { try $0.decode(Int64.self) }
    }

    func createWorkspace(_ workspace: Workspace, at now: Date) throws -> Workspace {
        let created = try PostgresWorkspaceStore(session: session).insert(workspace)
        try session.run("""
            INSERT INTO workspace_members (workspace_id, user_id, role, joined_at) VALUES (\(created.id!), \(created.ownerId), 'owner', \(now))
            """)
        return created
    }

    func memberIds(workspaceId: Int64) throws -> [Int64] {
        try session.run("SELECT user_id FROM workspace_members WHERE workspace_id = \(workspaceId) ORDER BY user_id")
            .map { try $0.decode(Int64.self) }
    }

    func createAccount(_ user: User) throws -> Int64 {
        try PostgresAccountStore(session: session).insert(user).id!
    }

    func join(workspaceId: Int64, defaultRoom: Int64?, userId: Int64, at now: Date) throws -> Bool {
        let joined = try !session.run("""
            INSERT INTO workspace_members (workspace_id, user_id, role, joined_at) VALUES (\(workspaceId), \(userId), 'member', \(now))
            ON CONFLICT DO NOTHING RETURNING user_id
            """).isEmpty
        guard joined else { return false }
        if let defaultRoom {
            try session.run("""
                INSERT INTO room_members (room_id, user_id, joined_at, last_read_message_id)
                VALUES (\(defaultRoom), \(userId), \(now), (SELECT COALESCE(MAX(id), 0) FROM messages WHERE room_id = \(defaultRoom)))
                ON CONFLICT DO NOTHING
                """)
        }
        return true
    }

    func users(ids: [Int64]) throws -> [User] {
        try session.run("SELECT \(unescaped: User.postgresColumns) FROM users WHERE id = ANY(\(ids)) ORDER BY id").map(User.init(postgres:))
    }

    func nicknames(userIds: [Int64]) throws -> [String] {
        try session.run("SELECT nickname FROM users WHERE id = ANY(\(userIds)) ORDER BY id").map { try $0.decode(String.self) }
    }

    // MARK: Rooms

    func channel(workspaceId: Int64, nameKey: String) throws -> Room? {
        try session.run("""
            SELECT \(unescaped: Room.postgresColumns) FROM rooms
            WHERE workspace_id = \(workspaceId) AND kind = 'channel' AND name_key = \(nameKey) ORDER BY id LIMIT 1
            """).first.map(Room.init(postgres:))
    }

    func isChannelNameTaken(workspaceId: Int64, nameKey: String) throws -> Bool {
        try channel(workspaceId: workspaceId, nameKey: nameKey) != nil
    }

    func conversation(workspaceId: Int64, kind: Room.Kind, dmKey: String) throws -> Room? {
        try session.run("""
            SELECT \(unescaped: Room.postgresColumns) FROM rooms
            WHERE workspace_id = \(workspaceId) AND kind = \(kind.rawValue) AND dm_key = \(dmKey) ORDER BY id LIMIT 1
            """).first.map(Room.init(postgres:))
    }

    func newestTimelineMessage(roomId: Int64) throws -> Int64 {
        try session.run("SELECT COALESCE(MAX(id), 0) FROM messages WHERE room_id = \(roomId) AND in_timeline")[0].decode(Int64.self)
    }

    func settle(roomId: Int64, members: [Int64], caughtUpAt: Int64, at now: Date) throws {
        let newest = try session.run("SELECT COALESCE(MAX(id), 0) FROM messages WHERE room_id = \(roomId)")[0].decode(Int64.self)
        if !members.isEmpty {
            try session.run("""
                INSERT INTO room_members (room_id, user_id, joined_at, last_read_message_id)
                SELECT \(roomId), member, \(now), \(newest) FROM unnest(\(members)::bigint[]) AS member ON CONFLICT DO NOTHING
                """)
        }
        try session.run("""
            UPDATE room_members SET last_read_message_id = \(newest)
            WHERE room_id = \(roomId) AND last_read_message_id >= \(caughtUpAt) AND last_read_message_id < \(newest)
            """)
    }

    func followThreads(roomId: Int64, roots: [Int64]) throws {
        for root in roots {
            try session.run(numbered: """
                INSERT INTO thread_follows (user_id, root_id, room_id, last_read_id)
                SELECT people.user_id, $1, $2, 0 FROM (
                    SELECT author_id AS user_id FROM messages WHERE (id = $1 OR thread_root_id = $1) AND author_id IS NOT NULL
                    UNION SELECT mentions.user_id FROM mentions JOIN messages ON messages.id = mentions.message_id
                    WHERE messages.id = $1 OR messages.thread_root_id = $1
                ) AS people JOIN room_members ON room_members.room_id = $2 AND room_members.user_id = people.user_id
                ON CONFLICT DO NOTHING
                """, binding: root, roomId)
            try session.run(numbered: """
                UPDATE thread_follows SET last_read_id = (SELECT MAX(id) FROM messages WHERE thread_root_id = $1)
                WHERE root_id = $1 AND last_read_id < (SELECT MAX(id) FROM messages WHERE thread_root_id = $1)
                """, binding: root)
        }
    }

    func exportedRooms(workspaceId: Int64, includePrivate: Bool) throws -> [Room] {
        try session.run("""
            SELECT \(unescaped: Room.postgresColumns) FROM rooms
            WHERE workspace_id = \(workspaceId) AND (kind = 'channel' OR \(includePrivate)) AND (visibility = 'public' OR \(includePrivate))
            ORDER BY id
            """).map(Room.init(postgres:))
    }

    func roomMembers(workspaceId: Int64) throws -> [Int64: [Int64]] {
        var members: [Int64: [Int64]] = [:]
        for row in try session.run("""
            SELECT room_members.room_id, room_members.user_id FROM room_members JOIN rooms ON rooms.id = room_members.room_id
            WHERE rooms.workspace_id = \(workspaceId) ORDER BY room_members.user_id
            """) {
            let (roomId, userId) = try row.decode((Int64, Int64).self)
            members[roomId, default: []].append(userId)
        }
        return members
    }

    // MARK: Messages

    func newestMessageId() throws -> Int64 {
        try session.run("SELECT COALESCE(MAX(id), 0) FROM messages")[0].decode(Int64.self)
    }

    func insertMessage(_ message: ImportedMessage) throws -> Int64 {
        let id = try session.run("""
            INSERT INTO messages (room_id, author_id, body, body_html, created_at, edited_at, thread_root_id, in_timeline)
            VALUES (\(message.roomId), \(message.authorId), \(message.body), \(message.rendered.html), \(message.createdAt),
                    \(message.editedAt), \(message.threadRootId), \(message.inTimeline))
            RETURNING id
            """)[0].decode(Int64.self)
        try PostgresSearchStore(session: session).index(messageId: id, roomId: message.roomId, text: message.rendered.plain)
        _ = try MessageService.recordMentions(tx, messageId: id, roomId: message.roomId, authorId: message.authorId ?? 0,
                                              rendered: message.rendered, online: [])
        return id
    }

    func markPlaceholder(messageId: Int64, at: Date) throws {
        // Counted as unread while it had text; the placeholder trigger takes it back out.
        try session.run("UPDATE messages SET deleted_at = \(at), body = '', body_html = '' WHERE id = \(messageId)")
    }

    func attachFiles(_ fileIds: [Int64], to messageId: Int64) throws {
        try PostgresMessageStore(session: session).attach(fileIds: fileIds, to: messageId)
    }

    func pin(messageId: Int64, roomId: Int64, pinnedBy: Int64?, at: Date) throws -> Bool {
        try !session.run("""
            INSERT INTO pins (message_id, room_id, pinned_by, created_at) VALUES (\(messageId), \(roomId), \(pinnedBy), \(at))
            ON CONFLICT DO NOTHING RETURNING message_id
            """).isEmpty
    }

    func addReaction(messageId: Int64, emoji: String, userId: Int64, at: Date) throws -> Bool {
        try !session.run("""
            INSERT INTO reactions (message_id, user_id, emoji, created_at) VALUES (\(messageId), \(userId), \(emoji), \(at))
            ON CONFLICT DO NOTHING RETURNING id
            """).isEmpty
    }

    func messagesNamingChannels(workspaceId: Int64, after lastMessageId: Int64) throws -> [Int64] {
        try session.run("""
            SELECT id FROM messages
            WHERE id > \(lastMessageId) AND room_id IN (SELECT id FROM rooms WHERE workspace_id = \(workspaceId))
              AND deleted_at IS NULL AND body LIKE '%#%'
            ORDER BY id
            """).map { try $0.decode(Int64.self) }
    }

    func messageTexts(ids: [Int64]) throws -> [ImportedMessageText] {
        try session.run("SELECT id, room_id, body, body_html FROM messages WHERE id = ANY(\(ids)) ORDER BY id").map { row in
            let (id, roomId, body, html) = try row.decode((Int64, Int64, String, String).self)
            return ImportedMessageText(id: id, roomId: roomId, body: body, html: html)
        }
    }

    func setHTML(_ html: String, messageId: Int64) throws {
        try session.run("UPDATE messages SET body_html = \(html) WHERE id = \(messageId)")
    }

    func exportedMessages(roomId: Int64) throws -> [ExportedMessage] {
        try session.run("""
            SELECT id, author_id, body_html, created_at, edited_at, thread_root_id, in_timeline, deleted_at IS NOT NULL
            FROM messages WHERE room_id = \(roomId) ORDER BY id
            """).map { row in
            let cells = try row.decode((Int64, Int64?, String, Date, Date?, Int64?, Bool, Bool).self)
            return ExportedMessage(id: cells.0, authorId: cells.1, html: cells.2, createdAt: cells.3, editedAt: cells.4,
                                   threadRootId: cells.5, inTimeline: cells.6, isDeleted: cells.7)
        }
    }

    func pins(roomId: Int64) throws -> [Int64: ExportedPin] {
        var pins: [Int64: ExportedPin] = [:]
        for row in try session.run("SELECT message_id, pinned_by, created_at FROM pins WHERE room_id = \(roomId)") {
            let (messageId, pinnedBy, at) = try row.decode((Int64, Int64?, Date).self)
            pins[messageId] = ExportedPin(pinnedBy: pinnedBy, at: at)
        }
        return pins
    }

    // MARK: What messages are rendered with

    func mentionDirectory(roomId: Int64) throws -> MentionDirectory {
        try MessageService.mentionDirectory(tx, roomId: roomId)
    }

    func publicChannels(workspaceId: Int64) throws -> ChannelDirectory {
        try MessageService.publicChannels(tx, workspaceId: workspaceId)
    }

    func nicknames(roomId: Int64) throws -> [String: Int64] {
        try PostgresMessageStore(session: session).memberNicknames(roomId: roomId)
    }
}

/// `SeedStore` on PostgreSQL.
struct PostgresSeedStore: SeedStore {
    let session: PostgresSession

    func addMember(roomId: Int64, userId: Int64, at now: Date) throws {
        try session.run("""
            INSERT INTO room_members (room_id, user_id, joined_at, last_read_message_id) VALUES (\(roomId), \(userId), \(now), 0)
            ON CONFLICT DO NOTHING
            """)
    }

    func insert(_ messages: [GeneratedMessage]) throws {
        let search = PostgresSearchStore(session: session)
        for message in messages {
            let id = try session.run("""
                INSERT INTO messages (room_id, author_id, body, body_html, created_at)
                VALUES (\(message.roomId), \(message.authorId), \(message.body), \(message.html), \(message.createdAt))
                RETURNING id
                """)[0].decode(Int64.self)
            try search.index(messageId: id, roomId: message.roomId, text: message.body)
        }
    }
}
