import Foundation
import Views

/// Messages in channels and DMs: reading pages, posting, editing, deleting, read markers and
/// unread counts. Every change is one transaction with the event that tells the room.
struct MessageService: Sendable {
    let database: AppDatabase
    let clock: WallClock
    /// Renders a message's viewer-neutral HTML (the same bytes for every reader).
    let fragment: @Sendable (MessageRow, _ workspaceId: Int64) -> String
    /// Draws a post's fragment before its write (`PostDraft`), and keeps it once filled in.
    let drafts: DraftFragments
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
         threadFragment: @escaping @Sendable (ThreadSummary, Int64) -> String = { _, _ in "" },
         drafts: DraftFragments = .none) {
        (self.database, self.clock, self.markers, self.fragment, self.online) = (database, clock, markers, fragment, online)
        self.drafts = drafts
        self.threadFragment = threadFragment
        keptPages = VersionedCache("message pages", of: database, clock: clock, capacity: 1024)
        receipts = ReadReceipts(database: database, clock: clock)
    }

    // MARK: Rooms a person may write in

    /// A room of the workspace that `access`'s person is a member of, or a 404.
    func memberRoom(_ access: WorkspaceAccess, id: Int64) async throws -> Room {
        try await database.queryOffLoop { tx in try tx.rooms.memberRoom(id: id, access) }
    }

    // MARK: Reading

    /// How many people are in a room (whom a mention of everyone reaches).
    func memberCount(roomId: Int64) async throws -> Int {
        try await database.queryOffLoop { tx in try tx.rooms.memberCount(roomId: roomId) }
    }

    /// A page of a room's messages (their stamps), from memory, or else read in `tx` (nil:
    /// memory only).
    func page(_ tx: (any StoreTransaction)?, roomId: Int64, anchor: MessageAnchor) throws -> MessagePage {
        try keptPages.value(for: PageKey(roomId: roomId, anchor: anchor), in: tx) { tx in
            try Self.page(tx, roomId: roomId, anchor: anchor)
        }
    }

    /// A page of a room's timeline (its messages, and the replies also sent to it, not those
    /// kept in their thread) as stamps, with their reactions, pins, cards and threads, read in `tx`.
    static func page(_ tx: any StoreTransaction, roomId: Int64, anchor: MessageAnchor, size: Int = pageSize) throws -> MessagePage {
        var page = try tx.messages.timeline(roomId: roomId, anchor: anchor, size: size)
        let ids = page.messages.map(\.id)
        page.reactions = try tx.reactions.groups(messageIds: ids)
        page.pinned = try tx.pins.pinned(among: ids)
        page.pinnedCount = try tx.pins.count(roomId: roomId)
        page.previews = try tx.linkPreviews.previews(among: ids)
        page.threads = try tx.threads.summaries(rootIds: ids)
        return page
    }

    /// Unread messages per room of the workspace for `userId`: messages after their marker, not
    /// counting their own.
    func unreadCounts(workspaceId: Int64, userId: Int64) async throws -> [Int64: Int] {
        try await database.queryOffLoop { tx in try tx.readMarks.markers(userId: userId, workspaceId: workspaceId).mapValues(\.unread) }
    }

    /// The markers (unread and mention counts) with the newest event id, read in one
    /// transaction: the counts include exactly the events up to that id (each post's event
    /// commits with it).
    func unreadSnapshot(workspaceId: Int64, userId: Int64) async throws -> (markers: [Int64: RoomMarker], eventId: Int64) {
        try await database.queryOffLoop { tx in
            (try tx.readMarks.markers(userId: userId, workspaceId: workspaceId), try tx.events.latestId())
        }
    }

    // MARK: Writing

    /// Posts a message with up to five prepared files. Throws `FormProblems` for over-long text,
    /// or empty text without files; nothing is stored then. With a `clientId` the author posted
    /// before, nothing is written: the answer is that message (`isRepeat`). With a `thread`, the
    /// message is a reply there: its followers learn of it, and the root's line changes.
    /// With its `author` (as the request's session read them), its fragment is drawn before the
    /// writer's turn (`PostDraft`).
    func post(in room: Room, authorId: Int64, author: User? = nil, text rawText: String, files: [PreparedFile] = [],
              clientId: String? = nil, thread: ThreadPlacement? = nil) async throws -> WrittenMessage {
        let text = try Self.checked(rawText, allowEmpty: !files.isEmpty)
        let now = clock.now(), fragment = self.fragment, threadFragment = self.threadFragment
        let rendered = try await render(text, roomId: room.id!)
        let present = rendered.groups.contains(.here) ? await online(room.id!) : []
        let inTimeline = thread?.alsoInRoom ?? true
        let draft = author.flatMap { author -> (PostDraft, String)? in
            let draft = PostDraft(roomId: room.id!, author: author, text: text, html: rendered.html, at: now, thread: thread, files: files)
            guard let draw = drafts.draw, !draft.standInsAppear else { return nil }
            return (draft, draw(draft.row, room.workspaceId))
        }
        // Posts arriving together share a transaction (each in its own savepoint), written one
        // after another, so a repeat sees the first post even when both arrive together.
        let written = try await database.writeTogether { tx in
            if try tx.rooms.isArchived(roomId: room.id!) { throw AppError.conflict("error_channel_archived") }
            if let thread { try tx.threads.requireRoot(id: thread.rootId, roomId: room.id!) }
            if let clientId, let earlier = try tx.messages.posted(authorId: authorId, clientId: clientId) {
                let row = try tx.messages.row(id: earlier, hasFiles: true)
                return WrittenMessage(row: row, html: fragment(row, room.workspaceId), isRepeat: true)
            }
            let messageId = try tx.messages.insert(roomId: room.id!, authorId: authorId, text: text, html: rendered.html, at: now,
                                                   clientId: clientId, thread: thread)
            try tx.search.index(messageId: messageId, roomId: room.id!, text: rendered.plain)
            let stored = try tx.files.insert(files, uploader: authorId, at: now)
            try tx.messages.attach(fileIds: stored.map { $0.id! }, to: messageId)
            // Writing is reading: the author's marker moves past their own message (a reply kept
            // in its thread says nothing of what they read in the room).
            if inTimeline {
                _ = try tx.rooms.advanceMarker(roomId: room.id!, userId: authorId, to: messageId)
            }
            let mentioned = try Self.recordMentions(tx, messageId: messageId, roomId: room.id!, authorId: authorId,
                                                    rendered: rendered, online: present)
            let followers = try thread.map { thread in
                try tx.threads.follow(rootId: thread.rootId, roomId: room.id!, replyId: messageId, authorId: authorId,
                                      mentioned: mentioned)
            } ?? []
            let row: MessageRow, html: String
            if let (draft, drawn) = draft {
                (row, html) = (draft.stored(id: messageId, files: stored), PostDraft.filled(drawn, id: messageId, files: stored))
            } else {
                row = try tx.messages.row(id: messageId, hasFiles: !files.isEmpty)
                html = fragment(row, room.workspaceId)
            }
            var event = OutgoingEvent(.messageCreated, to: .room(room.id!),
                                      json: MessagePayload(row, room: room, html: html, mentions: mentioned, followers: followers).json)
            event.messageId = messageId
            try tx.publish(event)
            if let thread {
                try ThreadEvents.summaryChanged(tx, rootId: thread.rootId, room: room, render: threadFragment)
            }
            return WrittenMessage(row: row, html: html)
        }
        if draft != nil, !written.isRepeat { drafts.keep?(written.html, written.row) }
        return written
    }

    /// Replaces the text of the author's own message.
    /// Edits one message may have: past them, post a new message.
    static let maximumEdits = 100

    func edit(messageId: Int64, in access: WorkspaceAccess, text rawText: String) async throws -> WrittenMessage {
        let text = try Self.checked(rawText)
        let now = clock.now(), fragment = self.fragment
        let (original, _) = try await visibleMessage(id: messageId, access)
        let rendered = try await render(text, roomId: original.roomId)
        let present = rendered.groups.contains(.here) ? await online(original.roomId) : []
        return try await database.write { tx in
            let (message, room) = try tx.messages.writable(id: messageId, access)
            guard message.authorId == access.userId else { throw AppError.forbidden("error_message_author_only") }
            guard try tx.messages.editCount(id: messageId) < Self.maximumEdits else { throw FormProblems([.content: "error_edit_limit"]) }
            try tx.search.index(messageId: messageId, roomId: room.id!, text: rendered.plain)
            // Who it mentions is what it says now (an edit notifies no one again).
            try tx.messages.removeMentions(messageId: messageId)
            _ = try Self.recordMentions(tx, messageId: messageId, roomId: room.id!, authorId: access.userId,
                                        rendered: rendered, online: present)
            // Every edit gets a later time than the one before, even within a millisecond: the
            // kept fragments know a message's version by it.
            let editedAt = message.editedAt.map { max(now, $0.addingTimeInterval(0.001)) } ?? now
            try tx.messages.applyEdit(id: messageId, text: text, html: rendered.html, editedAt: editedAt)
            let row = try tx.messages.row(id: messageId, hasFiles: true)
            let html = fragment(row, room.workspaceId)
            let payload = MessagePayload(row, room: room, html: html, mentions: [])
            // What the message said before is no longer to be read, replay included.
            try tx.events.scrubEdited(messageId: messageId, html: html, snippet: payload.snippet)
            var event = OutgoingEvent(.messageUpdated, to: .room(room.id!), json: payload.json)
            event.messageId = messageId
            try tx.publish(event)
            return WrittenMessage(row: row, html: html)
        }
    }

    /// The message and its room, if the person may see it (a member of its room), else a 404.
    func visibleMessage(id: Int64, _ access: WorkspaceAccess) async throws -> (MessageRow, Room) {
        try await database.queryOffLoop { tx in
            let (_, room) = try tx.messages.visible(id: id, access)
            return (try tx.messages.row(id: id, hasFiles: true), room)
        }
    }

    /// Moves the reader's marker forward to `upTo` (or the newest message) and tells their other
    /// tabs and devices. Never moves it back.
    func markRead(room: Room, userId: Int64, upTo: Int64? = nil) async throws {
        try await database.write { tx in
            let newest = try tx.messages.newestId(roomId: room.id!)
            let target = min(upTo ?? newest, newest)
            guard try tx.rooms.advanceMarker(roomId: room.id!, userId: userId, to: target) else { return }
            let marker = try tx.readMarks.marker(userId: userId, roomId: room.id!)
            try tx.publish(OutgoingEvent(.roomRead, to: .user(userId),
                                         payload: RoomReadPayload(workspaceId: room.workspaceId, roomId: room.id!,
                                                                  lastRead: target, unread: marker?.unread ?? 0,
                                                                  mentions: marker?.mentions ?? 0)))
            if room.kind != .channel {
                try tx.publish(OutgoingEvent(.roomReceipts, to: .room(room.id!),
                                             payload: ReceiptsPayload(workspaceId: room.workspaceId, roomId: room.id!,
                                                                      userId: userId, lastRead: target)))
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
}
