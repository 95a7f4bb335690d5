import Foundation
import HTTPTypes
import Hummingbird
import Views

/// Threads: `GET /w/{wid}/m/{mid}/thread` (a message and its replies: a page of its own without
/// JavaScript, the room page's side panel with it, `?panel=1`), `POST …/replies` (answer it, like
/// a message, files and all; `also_channel=1` shows the reply in the room too), `POST
/// …/thread/read`, `…/thread/follow` and `…/thread/unfollow`, and `GET /w/{wid}/threads`, the
/// threads the viewer follows. Only members of the message's room reach any of them (404).
struct ThreadsController: Sendable {
    let workspaces: WorkspaceService
    let messages: MessageService
    let threads: ThreadService
    let lists: MessageListRenderer
    let files: FileService
    let saved: SavedMessages
    let poster: MessagePoster
    let pages: Pages

    func addRoutes(to group: RouterGroup<SignedInContext>) {
        group.get(Paths.thread.routerPath, use: show)
        group.post(Paths.threadReplies.routerPath, use: reply)
        group.post(Paths.threadRead.routerPath, use: read)
        group.post(Paths.followThread.routerPath, use: follow)
        group.post(Paths.unfollowThread.routerPath, use: unfollow)
        group.get(Paths.threads.routerPath, use: list)
    }

    // MARK: The thread's page

    @Sendable func show(_ request: Request, context: SignedInContext) async throws -> Response {
        let access = try await context.workspaceAccess(workspaces)
        let mid = try context.id("mid")
        let thread = try await threads.locate(access, messageId: mid, publicReaders: true)
        if thread.viaReply {
            // A reply's own address is its thread's, at the reply.
            let query = request.uri.query.map { $0.isEmpty ? nil : $0 } ?? nil
            return Pages.redirect(to: Paths.thread(access.workspaceId, thread.rootId, query: query, fragment: "m-\(mid)"))
        }
        return try await render(thread, access, request, context)
    }

    /// The thread's page: the root, the replies, the reply composer (with `content` and the
    /// reason it was refused, when it was).
    private func render(_ thread: ThreadService.Located, _ access: WorkspaceAccess, _ request: Request, _ context: SignedInContext,
                        content: String = "", contentError: String? = nil, confirmMentions: Bool = false,
                        status: HTTPResponse.Status = .ok, headers extra: HTTPFields = [:]) async throws -> Response {
        let query = request.uri.queryParameters
        let before = try query["before"].map { text -> Int64 in
            guard let id = Int64(text), id > 0 else { throw AppError.badRequest }
            return id
        }
        let editing = query["edit"].flatMap { Int64($0) }
        let isPanel = query["panel"] == "1"
        let (wid, rootId, room) = (access.workspaceId, thread.rootId, thread.room)
        let path = Paths.thread(wid, rootId)
        let place = PagePlace.room(workspace: wid, room: room.id!)
        let eventId = pages.lastEventId()
        // The root and the replies are listed apart, a line with the replies' count between them.
        let reads = try await ThreadPageReader(database: messages.database, lists: lists, saved: saved, sidebar: pages.sidebar)
            .read(rootId: rootId, room: room, userId: context.userId, before: before, editing: editing, place: place)
        let (page, rootParts, replyParts, savedIds, sidebar) = (reads.page, reads.rootParts, reads.replyParts, reads.saved, reads.sidebar)
        let label = reads.root.map(Self.roomLabel) ?? room.name
        let strings = context.strings
        func listed(_ parts: ListParts, lastRead: Int64?) -> String {
            lists.list(parts, viewer: context.userId, isWorkspaceOwner: access.isOwner, workspaceId: wid,
                       lastRead: lastRead, editing: editing, roomPath: path, reactions: page.reactions,
                       pinned: page.pinned, saved: savedIds, previews: page.previews,
                       canReact: thread.isMember && !room.isArchived, readOnly: room.isArchived, request: request,
                       visitor: context.visitor)
        }
        let countText = strings.format("thread_reply_count", page.replyCount)
        let html = listed(rootParts, lastRead: nil)
            + #"<li class="thread-divider" id="thread-divider"><span>\#(HTMLEscaping.escape(countText))</span></li>"#
            + listed(replyParts, lastRead: page.lastRead)
        // The page records no reading: the script posts it once the newest replies are in a
        // visible window, and without it the form under the list does.
        let replies = page.stamps.dropFirst()
        let markReadUpTo = page.isFollowing && before == nil
            && replies.contains { $0.id > page.lastRead && $0.authorId != context.userId } ? replies.last?.id : nil
        let roomPath = room.path(for: context.userId)
        var model = RoomPage(workspaceId: wid, roomId: room.id, isChannel: room.kind == .channel, title: strings["thread_title"],
                             description: "", memberCountText: "", settingsURL: nil, isMember: thread.isMember,
                             joinURL: Paths.joinChannel(wid, room.id!),
                             messagesHtml: html, isEmpty: page.replyCount == 0,
                             olderURL: page.hasOlder ? page.stamps.dropFirst().first.map { Paths.thread(wid, rootId, query: "before=\($0.id)") } : nil,
                             newerURL: before == nil ? nil : path, isLatest: before == nil,
                             composerAction: Paths.threadReplies(wid, rootId), readURL: page.isFollowing ? Paths.threadRead(wid, rootId) : nil,
                             content: content, contentError: contentError)
        model.canModerate = access.isOwner
        model.markReadUpTo = markReadUpTo
        model.messageTemplatesHtml = lists.scriptTemplates(isWorkspaceOwner: access.isOwner, .init(
            workspaceId: wid, roomPath: path, canReact: thread.isMember && !room.isArchived, canReply: false,
            readOnly: room.isArchived, request: request, visitor: context.visitor))
        model.isPrivate = room.isPrivate
        model.isArchived = room.isArchived
        model.confirmMentions = confirmMentions
        model.thread = ThreadHeader(rootId: rootId, backURL: Paths.message(rootId, on: roomPath), roomLabel: label,
                                    alsoLabel: strings[room.kind == .channel ? "thread_also_channel" : "thread_also_conversation"],
                                    replyCountText: countText,
                                    followURL: page.isFollowing ? Paths.unfollowThread(wid, rootId) : Paths.followThread(wid, rootId),
                                    isFollowing: page.isFollowing, isPanel: isPanel)
        RoomsController.describeMessages(on: &model, slotted: RoomsController.SlotURLs(workspaceId: wid),
                                         emojiTableURL: pages.assets.url(for: "emoji.tsv"), policy: files.policy,
                                         canAct: thread.isMember && !room.isArchived, inThread: true, strings: strings)
        var headers = extra
        if isPanel {
            // The room's page shows it in a frame of its own (and only it may).
            headers[.contentSecurityPolicy] = SecurityHeaders.contentSecurityPolicy(frameAncestors: "'self'")
            headers[.init("X-Frame-Options")!] = "SAMEORIGIN"
        }
        return try await pages.render(.room, title: "\(strings["thread_title"]) · \(label)", page: model, request: request,
                                      context: context, place: place, status: status, headers: headers,
                                      preloaded: Pages.Preloaded(lastEventId: eventId, sidebar: sidebar), embedded: isPanel)
    }

    /// A conversation as the viewer names it: `#channel`, or the other people.
    static func roomLabel(_ collected: CollectedMessage) -> String {
        collected.conversationName ?? "#" + collected.room.name
    }

    // MARK: Replying

    @Sendable func reply(_ request: Request, context: SignedInContext) async throws -> Response {
        let access = try await context.workspaceAccess(workspaces)
        // Membership is checked before a byte of the body is read.
        let thread = try await threads.locate(access, messageId: try context.id("mid"))
        let room = thread.room
        let path = Paths.thread(access.workspaceId, thread.rootId)
        do {
            let submission = try await MessageSubmission.read(request, context, files: files)
            let destination = MessagePoster.Destination(
                room: { room }, memberCount: try await messages.memberCount(roomId: room.id!),
                thread: ThreadPlacement(rootId: thread.rootId, alsoInRoom: submission.alsoInRoom), path: path
            ) { content, reason, confirm, status in
                try await render(thread, access, request, context, content: content, contentError: reason, confirmMentions: confirm,
                                 status: status)
            }
            return try await poster.post(submission, to: destination, request: request, context: context)
        } catch let error as AppError where MessagePoster.showsBesideComposer(error, request) {
            // Without JavaScript, a refused upload comes back as the thread with the reason.
            let message = context.strings.format(error.messageKey ?? "error_\(error.status.code)_body", arguments: error.arguments)
            return try await render(thread, access, request, context, contentError: message, status: error.status,
                                    headers: error.headers)
        }
    }

    // MARK: Reading and following

    @Sendable func read(_ request: Request, context: SignedInContext) async throws -> Response {
        let access = try await context.workspaceAccess(workspaces)
        let thread = try await threads.locate(access, messageId: try context.id("mid"))
        let upTo = try context.form["message_id"].map { text -> Int64 in
            guard let id = Int64(text) else { throw AppError.badRequest }
            return id
        }
        try await threads.markRead(userId: context.userId, rootId: thread.rootId, room: thread.room, upTo: upTo)
        return RoomsController.wantsJSON(request) ? Response(status: .noContent)
            : Pages.redirect(to: Paths.thread(access.workspaceId, thread.rootId))
    }

    @Sendable func follow(_ request: Request, context: SignedInContext) async throws -> Response {
        try await setFollowing(true, request, context)
    }

    @Sendable func unfollow(_ request: Request, context: SignedInContext) async throws -> Response {
        try await setFollowing(false, request, context)
    }

    private func setFollowing(_ following: Bool, _ request: Request, _ context: SignedInContext) async throws -> Response {
        let access = try await context.workspaceAccess(workspaces)
        let thread = try await threads.locate(access, messageId: try context.id("mid"))
        try await threads.setFollowing(following, userId: context.userId, rootId: thread.rootId, room: thread.room)
        if RoomsController.wantsJSON(request) { return RoomsController.json(["following": .bool(following)]) }
        return Pages.redirect(to: Paths.thread(access.workspaceId, thread.rootId, query: request.uri.queryParameters["panel"] == "1"
                                                ? "panel=1" : nil))
    }

    // MARK: The Threads view

    /// `GET /w/{wid}/threads`: the threads the viewer follows, the latest reply first, each with
    /// its replies and how many are new.
    @Sendable func list(_ request: Request, context: SignedInContext) async throws -> Response {
        let access = try await context.workspaceAccess(workspaces)
        let followed = try await threads.followed(access)
        let strings = context.strings
        var page = MessageCollectionPage(heading: strings["threads_title"], listId: "thread-list", emptyText: strings["threads_empty"],
                                         items: followed.map { thread in
            var item = thread.root.item(for: context.userId)
            item.url = Paths.thread(access.workspaceId, thread.root.message.id)
            if thread.root.message.isDeleted {
                item.bodyHtml = #"<p class="message-deleted-text">\#(HTMLEscaping.escape(strings["message_deleted_placeholder"]))</p>"#
            }
            var detail = strings.format("thread_reply_count", thread.summary?.replyCount ?? 0)
            if thread.unread > 0 { detail += " · " + strings.format("threads_unread", thread.unread) }
            (item.detail, item.isUnread) = (detail, thread.unread > 0)
            return item
        })
        page.openLabel = strings["thread_open"]
        return try await pages.render(.messageCollection, title: strings["threads_title"], page: page, request: request,
                                      context: context, place: .workspace(access.workspaceId))
    }
}
