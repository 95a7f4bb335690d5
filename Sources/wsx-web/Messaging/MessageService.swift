import Foundation
import GRDB
import Views

/// Messages in channels and DMs: reading pages, posting, editing, deleting, read markers and
/// unread counts. Every change is one transaction with the event that tells the room.
struct MessageService: Sendable {
    let database: AppDatabase
    let clock: WallClock
    /// Renders a message's viewer-neutral HTML (the same bytes for every reader).
    let fragment: @Sendable (MessageRow, _ workspaceId: Int64) -> String
    /// Renders the line under a thread's root (replies, last reply, repliers), viewer-neutral too.
    let threadFragment: @Sendable (ThreadSummary, _ workspaceId: Int64) -> String
    /// Unread counts and read markers, as last read.
    let markers: ReadMarkers
    /// Each conversation member's marker, for the read receipts of DMs and groups.
    let receipts: ReadReceipts
    /// Pages of stamps by room and anchor, kept until messages or their authors change: viewing
    /// a room again, or another member viewing it, reads no messages.
    let keptPages: VersionedCache<PageKey, MessagePage>
    /// The members of a room with the app open (an event stream) right now: whom `@here` mentions.
    let online: @Sendable (Int64) async -> Set<Int64>

    struct PageKey: Hashable, Sendable {
        let roomId: Int64, anchor: MessageAnchor
    }

    static let pageSize = 50

    init(database: AppDatabase, clock: WallClock, markers: ReadMarkers, online: @escaping @Sendable (Int64) async -> Set<Int64> = { _ in [] },
         fragment: @escaping @Sendable (MessageRow, Int64) -> String,
         threadFragment: @escaping @Sendable (ThreadSummary, Int64) -> String = { _, _ in "" }) {
        (self.database, self.clock, self.markers, self.fragment, self.online) = (database, clock, markers, fragment, online)
        self.threadFragment = threadFragment
        keptPages = VersionedCache("message pages", of: database, clock: clock, capacity: 1024)
        receipts = ReadReceipts(database: database, clock: clock)
    }

    // MARK: Rooms a person may write in

    /// A room of the workspace that `access`'s person is a member of, or a 404.
    func memberRoom(_ access: WorkspaceAccess, id: Int64) async throws -> Room {
        try database.read { db in try Self.memberRoom(db, access, id: id) }
    }

    static func memberRoom(_ db: Database, _ access: WorkspaceAccess, id: Int64) throws -> Room {
        try SQLiteRoomStore(db: db).memberRoom(id: id, access)
    }

    // MARK: Reading

    /// How many people are in a room (whom a mention of everyone reaches).
    func memberCount(roomId: Int64) async throws -> Int {
        try database.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM room_members WHERE room_id = ?", arguments: [roomId]) ?? 0
        }
    }

    /// A page of a room's messages (their stamps), from memory, or else read in `db` (nil:
    /// memory only).
    func page(_ db: Database?, roomId: Int64, anchor: MessageAnchor) throws -> MessagePage {
        try keptPages.value(for: PageKey(roomId: roomId, anchor: anchor), in: db) { db in
            try Self.page(db, roomId: roomId, anchor: anchor)
        }
    }

    /// A page of a room's messages (their stamps), read in `db`.
    static func page(_ db: Database, roomId: Int64, anchor: MessageAnchor, size: Int = pageSize) throws -> MessagePage {
        // A room's timeline: its messages, and the replies also sent to it (not those kept in their thread).
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
        var page: MessagePage
        switch anchor {
        case .latest:
            let rows = try fetch("", "DESC", nil, limit: size + 1)
            page = MessagePage(messages: rows.prefix(size).reversed(), hasOlder: rows.count > size, hasNewer: false)
        case .before(let id):
            let rows = try fetch("AND messages.id < ?", "DESC", id, limit: size + 1)
            page = MessagePage(messages: rows.prefix(size).reversed(), hasOlder: rows.count > size,
                               hasNewer: try exists("AND id >= ?", id))
        case .after(let id):
            let rows = try fetch("AND messages.id > ?", "ASC", id, limit: size + 1)
            page = MessagePage(messages: Array(rows.prefix(size)), hasOlder: try exists("AND id <= ?", id),
                               hasNewer: rows.count > size)
        case .around(let id):
            let half = size / 2
            let older = try fetch("AND messages.id < ?", "DESC", id, limit: half + 1)
            let newer = try fetch("AND messages.id >= ?", "ASC", id, limit: half + 1)
            page = MessagePage(messages: older.prefix(half).reversed() + newer.prefix(half),
                               hasOlder: older.count > half, hasNewer: newer.count > half)
        }
        page.reactions = try SQLiteReactionStore(db: db).groups(messageIds: page.messages.map(\.id))
        page.pinned = try SQLitePinStore(db: db).pinned(among: page.messages.map(\.id))
        page.pinnedCount = try SQLitePinStore(db: db).count(roomId: roomId)
        page.previews = try SQLiteLinkPreviewStore(db: db).previews(among: page.messages.map(\.id))
        page.threads = try ThreadRecords.summaries(db, rootIds: page.messages.map(\.id))
        return page
    }

    /// Whole messages of a room by id, with their files, oldest first.
    static func rows(_ db: Database, roomId: Int64, ids: [Int64]) throws -> [MessageRow] {
        guard !ids.isEmpty else { return [] }
        let rows = try MessageRow.fetchAll(db, sql: """
            SELECT \(MessageRow.columns) FROM messages LEFT JOIN users ON users.id = messages.author_id
            WHERE messages.room_id = ? AND messages.id IN (\(databaseQuestionMarks(count: ids.count))) ORDER BY messages.id
            """, arguments: [roomId] + StatementArguments(ids))
        return try withAttachments(db, rows)
    }

    /// Unread messages per room of the workspace for `userId`: messages after their marker, not
    /// counting their own.
    func unreadCounts(workspaceId: Int64, userId: Int64) async throws -> [Int64: Int] {
        try database.read { db in try Self.unreadCounts(db, workspaceId: workspaceId, userId: userId) }
    }

    /// The markers (unread and mention counts) with the newest event id, read in one
    /// transaction: the counts include exactly the events up to that id (each post's event
    /// commits with it).
    func unreadSnapshot(workspaceId: Int64, userId: Int64) async throws -> (markers: [Int64: RoomMarker], eventId: Int64) {
        try database.read { db in
            (try ReadMarkers.read(db, userId: userId, workspaceId: workspaceId),
             try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'events'") ?? 0)
        }
    }

    static func unreadCounts(_ db: Database, workspaceId: Int64, userId: Int64) throws -> [Int64: Int] {
        try ReadMarkers.read(db, userId: userId, workspaceId: workspaceId).mapValues(\.unread)
    }

    // MARK: Writing

    /// Posts a message with up to five prepared files. Throws `FormProblems` for over-long text,
    /// or empty text without files; nothing is stored then. With a `clientId` the author posted
    /// before, nothing is written: the answer is that message (`isRepeat`). With a `thread`, the
    /// message is a reply there: its followers learn of it, and the root's line changes.
    func post(in room: Room, authorId: Int64, text rawText: String, files: [PreparedFile] = [],
              clientId: String? = nil, thread: ThreadPlacement? = nil) async throws -> WrittenMessage {
        let text = try Self.checked(rawText, allowEmpty: !files.isEmpty)
        let now = clock.now(), outbox = database.outbox, fragment = self.fragment, threadFragment = self.threadFragment
        let rendered = try render(text, roomId: room.id!)
        let present = rendered.groups.contains(.here) ? await online(room.id!) : []
        let inTimeline = thread?.alsoInRoom ?? true
        // Posts arriving together share a transaction (each in its own savepoint), written one
        // after another, so a repeat sees the first post even when both arrive together.
        return try await database.groupCommit.write { db in
            try Room.requireOpen(db, roomId: room.id!)
            if let thread { try ThreadRecords.requireRoot(db, id: thread.rootId, roomId: room.id!) }
            if let clientId, let earlier = try Int64.fetchOne(db.cachedStatement(sql: """
                SELECT id FROM messages WHERE author_id = ? AND client_id = ?
                """), arguments: [authorId, clientId]) {
                let row = try Self.row(db, id: earlier)
                return WrittenMessage(row: row, html: fragment(row, room.workspaceId), isRepeat: true)
            }
            let messageId = try Self.insert(db, roomId: room.id!, authorId: authorId, text: text, html: rendered.html, at: now,
                                            clientId: clientId, thread: thread)
            try SearchIndex.index(db, messageId: messageId, roomId: room.id!, text: rendered.plain)
            for (position, file) in try FileService.insert(db, files, uploader: authorId, at: now).enumerated() {
                try db.execute(sql: "INSERT INTO message_files (message_id, file_id, position) VALUES (?, ?, ?)",
                               arguments: [messageId, file.id!, position])
            }
            // Writing is reading: the author's marker moves past their own message (a reply kept
            // in its thread says nothing of what they read in the room).
            if inTimeline {
                try db.cachedStatement(sql: """
                    UPDATE room_members SET last_read_message_id = ? WHERE room_id = ? AND user_id = ? AND last_read_message_id < ?
                    """).execute(arguments: [messageId, room.id!, authorId, messageId])
            }
            let mentioned = try Self.recordMentions(db, messageId: messageId, roomId: room.id!, authorId: authorId,
                                                    rendered: rendered, online: present)
            let followers = try thread.map { thread in
                try ThreadRecords.follow(db, rootId: thread.rootId, roomId: room.id!, replyId: messageId, authorId: authorId,
                                         mentioned: mentioned)
            } ?? []
            let row = try Self.row(db, id: messageId, hasFiles: !files.isEmpty)
            let html = fragment(row, room.workspaceId)
            var event = OutgoingEvent(.messageCreated, to: .room(room.id!),
                                      json: MessagePayload(row, room: room, html: html, mentions: mentioned, followers: followers).json)
            event.messageId = messageId
            try outbox.publish(event, in: db)
            if let thread {
                try ThreadEvents.summaryChanged(db, rootId: thread.rootId, room: room, outbox: outbox, render: threadFragment)
            }
            return WrittenMessage(row: row, html: html)
        }
    }

    /// Replaces the text of the author's own message.
    /// Edits one message may have: past them, post a new message.
    static let maximumEdits = 100

    func edit(messageId: Int64, in access: WorkspaceAccess, text rawText: String) async throws -> WrittenMessage {
        let text = try Self.checked(rawText)
        let now = clock.now(), outbox = database.outbox, fragment = self.fragment
        let (original, _) = try await visibleMessage(id: messageId, access)
        let rendered = try render(text, roomId: original.roomId)
        let present = rendered.groups.contains(.here) ? await online(original.roomId) : []
        return try await database.writer.write { db in
            let (message, room) = try Self.writableMessage(db, id: messageId, access)
            guard message.authorId == access.userId else { throw AppError.forbidden("error_message_author_only") }
            let edits = try Int.fetchOne(db, sql: "SELECT edit_count FROM messages WHERE id = ?", arguments: [messageId]) ?? 0
            guard edits < Self.maximumEdits else { throw FormProblems([.content: "error_edit_limit"]) }
            try SearchIndex.index(db, messageId: messageId, roomId: room.id!, text: rendered.plain)
            // Who it mentions is what it says now (an edit notifies no one again).
            try db.execute(sql: "DELETE FROM mentions WHERE message_id = ?", arguments: [messageId])
            _ = try Self.recordMentions(db, messageId: messageId, roomId: room.id!, authorId: access.userId,
                                        rendered: rendered, online: present)
            // Every edit gets a later time than the one before, even within a millisecond: the
            // kept fragments know a message's version by it.
            let editedAt = message.editedAt.map { max(now, $0.addingTimeInterval(0.001)) } ?? now
            try Message.filter(key: messageId).updateAll(db, Message.CodingKeys.body.set(to: text),
                                                         Message.CodingKeys.bodyHtml.set(to: rendered.html),
                                                         Message.CodingKeys.editedAt.set(to: editedAt),
                                                         Column("edit_count") += 1)
            let row = try Self.row(db, id: messageId)
            let html = fragment(row, room.workspaceId)
            let payload = MessagePayload(row, room: room, html: html, mentions: [])
            // What the message said before is no longer to be read, replay included.
            try MessageEventScrub.edited(db, messageId: messageId, html: html, snippet: payload.snippet)
            var event = OutgoingEvent(.messageUpdated, to: .room(room.id!), json: payload.json)
            event.messageId = messageId
            try outbox.publish(event, in: db)
            return WrittenMessage(row: row, html: html)
        }
    }

    /// The message and its room, if the person may see it (a member of its room), else a 404.
    func visibleMessage(id: Int64, _ access: WorkspaceAccess) async throws -> (MessageRow, Room) {
        try database.read { db in
            let (_, room) = try Self.visibleMessage(db, id: id, access)
            return (try Self.row(db, id: id), room)
        }
    }

    /// Moves the reader's marker forward to `upTo` (or the newest message) and tells their other
    /// tabs and devices. Never moves it back.
    func markRead(room: Room, userId: Int64, upTo: Int64? = nil) async throws {
        let outbox = database.outbox
        try await database.writer.write { db in
            // Cached statements: a page view after every post runs this.
            let newest = try Int64.fetchOne(db.cachedStatement(sql: "SELECT MAX(id) FROM messages WHERE room_id = ?"),
                                            arguments: [room.id!]) ?? 0
            let target = min(upTo ?? newest, newest)
            try db.cachedStatement(sql: """
                UPDATE room_members SET last_read_message_id = ? WHERE room_id = ? AND user_id = ? AND last_read_message_id < ?
                """).execute(arguments: [target, room.id!, userId, target])
            guard db.changesCount > 0 else { return }
            let marker = try ReadMarkers.read(db, userId: userId, roomId: room.id!)
            try outbox.publish(OutgoingEvent(.roomRead, to: .user(userId),
                                             payload: RoomReadPayload(workspaceId: room.workspaceId, roomId: room.id!,
                                                                      lastRead: target, unread: marker?.unread ?? 0,
                                                                      mentions: marker?.mentions ?? 0)), in: db)
            if room.kind != .channel {
                try outbox.publish(OutgoingEvent(.roomReceipts, to: .room(room.id!),
                                                 payload: ReceiptsPayload(workspaceId: room.workspaceId, roomId: room.id!,
                                                                          userId: userId, lastRead: target)), in: db)
            }
        }
    }

    // MARK: Helpers

    static func checked(_ raw: String, allowEmpty: Bool = false) throws -> String {
        let text = MessageText.clean(raw)
        if text.isEmpty, !allowEmpty { throw FormProblems([.content: "error_message_empty"]) }
        var problems = FormProblems()
        problems.check(text, fits: MessageText.limit, .content, tooLongKey: "error_message_long")
        try problems.throwIfAny()
        return text
    }

    /// The message as lists show it; `hasFiles` false skips looking for attachments it cannot have.
    static func row(_ db: Database, id: Int64, hasFiles: Bool = true) throws -> MessageRow {
        guard let row = try MessageRow.fetchOne(db.cachedStatement(sql: """
            SELECT \(MessageRow.columns) FROM messages LEFT JOIN users ON users.id = messages.author_id WHERE messages.id = ?
            """), arguments: [id]) else { throw AppError.notFound }
        return hasFiles ? try withAttachments(db, [row])[0] : row
    }

    /// Stores a new message; returns its id. A cached statement rather than `Message.inserted`:
    /// posts run this in the writer's turn, which every post waits for, and the record's
    /// Codable encoding and column lookup cost more than the insert itself (perf).
    static func insert(_ db: Database, roomId: Int64, authorId: Int64, text: String, html: String, at now: Date,
                       clientId: String? = nil, thread: ThreadPlacement? = nil) throws -> Int64 {
        try db.cachedStatement(sql: """
            INSERT INTO messages (room_id, author_id, body, body_html, created_at, edited_at, client_id, thread_root_id, in_timeline)
            VALUES (?, ?, ?, ?, ?, NULL, ?, ?, ?)
            """).execute(arguments: [roomId, authorId, text, html, Timestamps.database(now), clientId, thread?.rootId,
                                     thread?.alsoInRoom ?? true])
        return db.lastInsertedRowID
    }

    static func withAttachments(_ db: Database, _ rows: [MessageRow]) throws -> [MessageRow] {
        let files = try FileService.attachments(db, messageIds: rows.map(\.id))
        return rows.map { row in
            var row = row
            row.attachments = files[row.id] ?? []
            return row
        }
    }

    static func visibleMessage(_ db: Database, id: Int64, _ access: WorkspaceAccess) throws -> (Message, Room) {
        try SQLiteMessageStore(db: db).visible(id: id, access)
    }

    /// The same, for a change to the message (edit, delete, react, pin): also a 409 when its room
    /// is archived, read in the writer's transaction.
    static func writableMessage(_ db: Database, id: Int64, _ access: WorkspaceAccess) throws -> (Message, Room) {
        try SQLiteMessageStore(db: db).writable(id: id, access)
    }
}
