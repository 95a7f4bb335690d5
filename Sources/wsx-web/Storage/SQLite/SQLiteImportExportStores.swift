import Foundation
import GRDB
import Views

/// `SlackImportStore` on SQLite: `slack_ids`, and the import's and export's statements. The
/// statements run for every message of an import are cached: compiling one per message (and the
/// authorizer pass the database's change counters ask for) was a quarter of an import's time.
struct SQLiteSlackImportStore: SlackImportStore {
    let db: Database

    // MARK: Slack ids

    func localIds(workspaceId: Int64, kind: SlackIds.Kind) throws -> [String: Int64] {
        var found: [String: Int64] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT slack_id, local_id FROM slack_ids WHERE workspace_id = ? AND kind = ?",
                                    arguments: [workspaceId, kind.rawValue]) {
            found[row[0]] = row[1]
        }
        return found
    }

    func slackIds(workspaceId: Int64, kind: SlackIds.Kind) throws -> [Int64: String] {
        var found: [Int64: String] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT slack_id, local_id FROM slack_ids WHERE workspace_id = ? AND kind = ?",
                                    arguments: [workspaceId, kind.rawValue]) {
            // One local row may have been read under two ids (two exports): the first stays.
            let local: Int64 = row[1]
            if found[local] == nil { found[local] = row[0] }
        }
        return found
    }

    func localId(workspaceId: Int64, kind: SlackIds.Kind, slackId: String) throws -> Int64? {
        try Int64.fetchOne(db.cachedStatement(sql: """
            SELECT local_id FROM slack_ids WHERE workspace_id = ? AND kind = ? AND slack_id = ?
            """), arguments: [workspaceId, kind.rawValue, slackId])
    }

    func messageKeys(workspaceId: Int64, conversation: String) throws -> [(key: String, localId: Int64)] {
        // Keys of the conversation sort between "C01/" and "C010" ("0" follows "/").
        try Row.fetchAll(db, sql: """
            SELECT slack_id, local_id FROM slack_ids WHERE workspace_id = ? AND kind = 'message' AND slack_id >= ? AND slack_id < ?
            """, arguments: [workspaceId, conversation + "/", conversation + "0"]).map { row -> (key: String, localId: Int64) in
            let key: String = row[0], localId: Int64 = row[1]
            return (key: key, localId: localId)
        }
    }

    func remember(workspaceId: Int64, kind: SlackIds.Kind, slackId: String, localId: Int64) throws {
        try db.cachedStatement(sql: """
            INSERT INTO slack_ids (workspace_id, kind, slack_id, local_id) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING
            """).execute(arguments: [workspaceId, kind.rawValue, slackId, localId])
    }

    // MARK: Workspaces and people

    func workspace(ownerId: Int64, nameKey: String) throws -> Workspace? {
        try Workspace.filter(Workspace.CodingKeys.ownerId == ownerId && Workspace.CodingKeys.nameKey == nameKey).fetchOne(db)
    }

    func workspaceIds(nameKey: String) throws -> [Int64] {
        try Int64.fetchAll(db, sql: "SELECT id FROM workspaces WHERE name_key = ? ORDER BY id", arguments: [nameKey])
    }

    func createWorkspace(_ workspace: Workspace, at now: Date) throws -> Workspace {
        let workspace = try workspace.inserted(db)
        try WorkspaceMember(workspaceId: workspace.id!, userId: workspace.ownerId, role: .owner, joinedAt: now).insert(db)
        return workspace
    }

    func memberIds(workspaceId: Int64) throws -> [Int64] {
        try Int64.fetchAll(db, sql: "SELECT user_id FROM workspace_members WHERE workspace_id = ?", arguments: [workspaceId])
    }

    func createAccount(_ user: User) throws -> Int64 {
        try user.inserted(db).id!
    }

    func join(workspaceId: Int64, defaultRoom: Int64?, userId: Int64, at now: Date) throws -> Bool {
        try db.execute(sql: "INSERT INTO workspace_members (workspace_id, user_id, role, joined_at) VALUES (?, ?, 'member', ?) ON CONFLICT DO NOTHING",
                       arguments: [workspaceId, userId, now])
        guard db.changesCount > 0 else { return false }
        if let defaultRoom {
            try db.execute(sql: """
                INSERT INTO room_members (room_id, user_id, joined_at, last_read_message_id)
                VALUES (?, ?, ?, (SELECT COALESCE(MAX(id), 0) FROM messages WHERE room_id = ?)) ON CONFLICT DO NOTHING
                """, arguments: [defaultRoom, userId, now, defaultRoom])
        }
        return true
    }

    func users(ids: [Int64]) throws -> [User] {
        try User.fetchAll(db, keys: ids)
    }

    func nicknames(userIds: [Int64]) throws -> [String] {
        guard !userIds.isEmpty else { return [] }
        return try String.fetchAll(db, sql: "SELECT nickname FROM users WHERE id IN (\(databaseQuestionMarks(count: userIds.count))) ORDER BY id",
                                   arguments: StatementArguments(userIds))
    }

    // MARK: Rooms

    func channel(workspaceId: Int64, nameKey: String) throws -> Room? {
        try Room.filter(Room.CodingKeys.workspaceId == workspaceId && Room.CodingKeys.kind == "channel"
                        && Room.CodingKeys.nameKey == nameKey).fetchOne(db)
    }

    func isChannelNameTaken(workspaceId: Int64, nameKey: String) throws -> Bool {
        try Room.filter(Room.CodingKeys.workspaceId == workspaceId && Room.CodingKeys.kind == "channel"
                        && Room.CodingKeys.nameKey == nameKey).fetchCount(db) > 0
    }

    func conversation(workspaceId: Int64, kind: Room.Kind, dmKey: String) throws -> Room? {
        try Room.filter(Room.CodingKeys.workspaceId == workspaceId && Room.CodingKeys.kind == kind.rawValue
                        && Room.CodingKeys.dmKey == dmKey).fetchOne(db)
    }

    func newestTimelineMessage(roomId: Int64) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(id), 0) FROM messages WHERE room_id = ? AND in_timeline = 1",
                           arguments: [roomId]) ?? 0
    }

    func settle(roomId: Int64, members: [Int64], caughtUpAt: Int64, at now: Date) throws {
        let newest = try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(id), 0) FROM messages WHERE room_id = ?",
                                        arguments: [roomId]) ?? 0
        for member in members {
            try db.execute(sql: """
                INSERT INTO room_members (room_id, user_id, joined_at, last_read_message_id) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING
                """, arguments: [roomId, member, now, newest])
        }
        try db.execute(sql: """
            UPDATE room_members SET last_read_message_id = ? WHERE room_id = ? AND last_read_message_id >= ? AND last_read_message_id < ?
            """, arguments: [newest, roomId, caughtUpAt, newest])
    }

    func followThreads(roomId: Int64, roots: [Int64]) throws {
        for root in roots {
            try db.execute(sql: """
                INSERT INTO thread_follows (user_id, root_id, room_id, last_read_id)
                SELECT people.user_id, ?1, ?2, 0 FROM (
                    SELECT author_id AS user_id FROM messages WHERE (id = ?1 OR thread_root_id = ?1) AND author_id IS NOT NULL
                    UNION SELECT mentions.user_id FROM mentions JOIN messages ON messages.id = mentions.message_id
                    WHERE messages.id = ?1 OR messages.thread_root_id = ?1
                ) AS people JOIN room_members ON room_members.room_id = ?2 AND room_members.user_id = people.user_id
                WHERE true ON CONFLICT DO NOTHING
                """, arguments: [root, roomId])
            try db.execute(sql: """
                UPDATE thread_follows SET last_read_id = (SELECT MAX(id) FROM messages WHERE thread_root_id = ?1)
                WHERE root_id = ?1 AND last_read_id < (SELECT MAX(id) FROM messages WHERE thread_root_id = ?1)
                """, arguments: [root])
        }
    }

    func exportedRooms(workspaceId: Int64, includePrivate: Bool) throws -> [Room] {
        let kinds = includePrivate ? "('channel', 'dm', 'group')" : "('channel')"
        return try Room.fetchAll(db, sql: """
            SELECT * FROM rooms WHERE workspace_id = ? AND kind IN \(kinds) \(includePrivate ? "" : "AND visibility = 'public'")
            ORDER BY id
            """, arguments: [workspaceId])
    }

    func roomMembers(workspaceId: Int64) throws -> [Int64: [Int64]] {
        var members: [Int64: [Int64]] = [:]
        for row in try Row.fetchAll(db, sql: """
            SELECT room_members.room_id, room_members.user_id FROM room_members JOIN rooms ON rooms.id = room_members.room_id
            WHERE rooms.workspace_id = ? ORDER BY room_members.user_id
            """, arguments: [workspaceId]) {
            members[row[0], default: []].append(row[1])
        }
        return members
    }

    // MARK: Messages

    func newestMessageId() throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM messages") ?? 0
    }

    func insertMessage(_ message: ImportedMessage) throws -> Int64 {
        try db.cachedStatement(sql: """
            INSERT INTO messages (room_id, author_id, body, body_html, created_at, edited_at, thread_root_id, in_timeline)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [message.roomId, message.authorId, message.body, message.rendered.html,
                                     Timestamps.database(message.createdAt), message.editedAt.map(Timestamps.database),
                                     message.threadRootId, message.inTimeline])
        let id = db.lastInsertedRowID
        try SearchIndex.index(db, messageId: id, roomId: message.roomId, text: message.rendered.plain)
        _ = try MessageService.recordMentions(db, messageId: id, roomId: message.roomId, authorId: message.authorId ?? 0,
                                              rendered: message.rendered, online: [])
        return id
    }

    func markPlaceholder(messageId: Int64, at: Date) throws {
        // Counted as unread while it had text; the placeholder trigger takes it back out.
        try db.execute(sql: "UPDATE messages SET deleted_at = ?, body = '', body_html = '' WHERE id = ?",
                       arguments: [Timestamps.database(at), messageId])
    }

    func attachFiles(_ fileIds: [Int64], to messageId: Int64) throws {
        for (position, fileId) in fileIds.enumerated() {
            try db.cachedStatement(sql: "INSERT INTO message_files (message_id, file_id, position) VALUES (?, ?, ?)")
                .execute(arguments: [messageId, fileId, position])
        }
    }

    func pin(messageId: Int64, roomId: Int64, pinnedBy: Int64?, at: Date) throws -> Bool {
        try db.execute(sql: "INSERT INTO pins (message_id, room_id, pinned_by, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                       arguments: [messageId, roomId, pinnedBy, Timestamps.database(at)])
        return db.changesCount > 0
    }

    func addReaction(messageId: Int64, emoji: String, userId: Int64, at: Date) throws -> Bool {
        try db.cachedStatement(sql: "INSERT INTO reactions (message_id, user_id, emoji, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING")
            .execute(arguments: [messageId, userId, emoji, Timestamps.database(at)])
        return db.changesCount > 0
    }

    func messagesNamingChannels(workspaceId: Int64, after lastMessageId: Int64) throws -> [Int64] {
        try Int64.fetchAll(db, sql: """
            SELECT id FROM messages
            WHERE id > ? AND room_id IN (SELECT id FROM rooms WHERE workspace_id = ?) AND deleted_at IS NULL AND body LIKE '%#%'
            ORDER BY id
            """, arguments: [lastMessageId, workspaceId])
    }

    func messageTexts(ids: [Int64]) throws -> [ImportedMessageText] {
        try Row.fetchAll(db, sql: "SELECT id, room_id, body, body_html FROM messages WHERE id IN (\(ids.map(String.init).joined(separator: ",")))")
            .map { row in ImportedMessageText(id: row["id"], roomId: row["room_id"], body: row["body"], html: row["body_html"]) }
    }

    func setHTML(_ html: String, messageId: Int64) throws {
        try db.execute(sql: "UPDATE messages SET body_html = ? WHERE id = ?", arguments: [html, messageId])
    }

    func exportedMessages(roomId: Int64) throws -> [ExportedMessage] {
        try Row.fetchAll(db, sql: """
            SELECT id, author_id, body_html, created_at, edited_at, thread_root_id, in_timeline, deleted_at IS NOT NULL
            FROM messages WHERE room_id = ? ORDER BY id
            """, arguments: [roomId]).map {
            ExportedMessage(id: $0[0], authorId: $0[1], html: $0[2], createdAt: $0[3], editedAt: $0[4], threadRootId: $0[5],
                            inTimeline: $0[6], isDeleted: $0[7])
        }
    }

    func pins(roomId: Int64) throws -> [Int64: ExportedPin] {
        try Dictionary(Row.fetchAll(db, sql: "SELECT message_id, pinned_by, created_at FROM pins WHERE room_id = ?",
                                    arguments: [roomId]).map { ($0[0] as Int64, ExportedPin(pinnedBy: $0[1], at: $0[2])) }) { a, _ in a }
    }

    // MARK: What messages are rendered with

    func mentionDirectory(roomId: Int64) throws -> MentionDirectory {
        try MessageService.mentionDirectory(db, roomId: roomId)
    }

    func publicChannels(workspaceId: Int64) throws -> ChannelDirectory {
        try MessageService.publicChannels(db, workspaceId: workspaceId)
    }

    func nicknames(roomId: Int64) throws -> [String: Int64] {
        try MessageService.nicknames(db, roomId: roomId)
    }
}

/// `SeedStore` on SQLite.
struct SQLiteSeedStore: SeedStore {
    let db: Database

    func addMember(roomId: Int64, userId: Int64, at now: Date) throws {
        try db.execute(sql: "INSERT INTO room_members (room_id, user_id, joined_at, last_read_message_id) VALUES (?, ?, ?, 0) ON CONFLICT DO NOTHING",
                       arguments: [roomId, userId, now])
    }

    func insert(_ messages: [GeneratedMessage]) throws {
        let insert = try db.makeStatement(sql: """
            INSERT INTO messages (room_id, author_id, body, body_html, created_at) VALUES (?, ?, ?, ?, ?)
            """)
        for message in messages {
            try insert.execute(arguments: [message.roomId, message.authorId, message.body, message.html, message.createdAt])
            try SearchIndex.index(db, messageId: db.lastInsertedRowID, roomId: message.roomId, text: message.body)
        }
    }
}
