import Foundation
import Hummingbird
import NIOCore
import Uploads
import Views

/// A room's page and its messages, for channels (`/w/{wid}/c/{cid}`), DMs (`/w/{wid}/dm/{uid}`)
/// and group conversations (`/w/{wid}/g/{rid}`) alike: read a page of history, post, mark read. Scripts post with
/// `Accept: application/json` and get the message back as JSON instead of a redirect.
struct RoomsController: Sendable {
    let workspaces: WorkspaceService
    let messages: MessageService
    let directRooms: DirectRooms
    let members: MembershipService
    let lists: MessageListRenderer
    let files: FileService
    let pins: PinService
    let saved: SavedMessages
    let lastRooms: LastRooms
    let poster: MessagePoster
    let statuses: StatusService
    let cookies: CookiePolicy
    let pages: Pages
    /// How the routes find their room.
    let scope: RoomScope
    /// The page's per-message URLs with the id slot, the same for every page of a workspace.
    let slotURLs = BoundedMemo<Int64, SlotURLs>(capacity: 1024)

    /// A workspace's message URLs with `MessageListRenderer.idPlaceholder` where the id goes.
    struct SlotURLs: Sendable {
        let slot: String, edit: String, delete: String, react: String, removePreview: String, thread: String
        let marks: MessageMarkURLs

        init(workspaceId wid: Int64) {
            let id = MessageListRenderer.idPlaceholder
            (slot, edit, delete, react) = (String(id), Paths.editMessage(wid, id), Paths.deleteMessage(wid, id),
                                           Paths.messageReactions(wid, id))
            (removePreview, thread) = (Paths.removePreview(wid, id), Paths.thread(wid, id))
            marks = MessageMarkURLs(pin: Paths.pinMessage(wid, id), unpin: Paths.unpinMessage(wid, id),
                                    save: Paths.saveMessage(wid, id), unsave: Paths.unsaveMessage(wid, id))
        }
    }


    func addRoutes(to group: RouterGroup<SignedInContext>) {
        group.onEveryRoom(.get, { $0.page }, scope: scope) { try await show($0, $1, $2) }
        group.onEveryRoom(.get, { $0.pins }, scope: scope) { try await showPins($0, $1, $2) }
        group.onEveryRoom(.post, { $0.messages }, scope: scope) { try await postMessage($0, $1, $2) }
        group.onEveryRoom(.post, { $0.read }, scope: scope) { try await read($0, $1, $2) }
        group.get(Paths.unread.routerPath, use: unread)
    }

    // MARK: Pages

    private func show(_ target: ScopedRoom, _ request: Request, _ context: SignedInContext, content: String = "",
                      contentError: String? = nil, confirmMentions: Bool = false, status: HTTPResponse.Status = .ok,
                      headers extra: HTTPFields = [:]) async throws -> Response {
        let query = request.uri.queryParameters
        let anchor = try MessageAnchor { query[Substring($0)].map(String.init) }
        let editing = query["edit"].flatMap { Int64($0) }
        var html = "", templates = "", isEmpty = true, markReadUpTo: Int64?, olderURL: String?, newerURL: String?, isLatest = true, pinnedCount = 0
        let place: PagePlace = target.room.map { .room(workspace: target.access.workspaceId, room: $0.id!) }
            ?? .workspace(target.access.workspaceId)
        // The event id is read before the page's reads, as the chrome would.
        let eventId = pages.lastEventId()
        let room = target.room
        let isMember = target.isMember
        let reads = try await RoomPageReader(messages: messages, lists: lists, saved: saved, sidebar: pages.sidebar)
            .read(room: room, isMember: isMember, userId: context.userId, workspaceId: target.access.workspaceId,
                  anchor: anchor, editing: editing, place: place)
        var preloaded = Pages.Preloaded(lastEventId: eventId, sidebar: reads.sidebar)
        var receiptsJSON: String?
        if let room, let (page, parts) = reads.messages {
            let lastRead = reads.lastRead
            // The newest message, when the page ends with it and the member's marker is behind: the
            // page's script posts that read (the page itself records nothing), so the page shows
            // it read already: the viewer counts as a reader in the receipts, and the room being
            // shown wears no badge.
            let shownRead = isMember && !page.hasNewer ? page.messages.last.flatMap { $0.id > lastRead ? $0.id : nil } : nil
            let receipts = shownRead.map { reads.receipts?.moved(userId: context.userId, to: $0) } ?? reads.receipts
            receiptsJSON = receipts?.json
            html = lists.list(parts, viewer: context.userId, isWorkspaceOwner: target.access.isOwner,
                              workspaceId: target.access.workspaceId, lastRead: lastRead, editing: editing,
                              roomPath: target.path, reactions: page.reactions, pinned: page.pinned, saved: reads.saved,
                              previews: page.previews, threads: page.threads, receipts: receipts,
                              canReact: isMember && !room.isArchived, canReply: true, readOnly: room.isArchived,
                              request: request, visitor: context.visitor)
            templates = lists.scriptTemplates(isWorkspaceOwner: target.access.isOwner, .init(
                workspaceId: target.access.workspaceId, roomPath: target.path, canReact: isMember && !room.isArchived, canReply: true,
                readOnly: room.isArchived, request: request, visitor: context.visitor))
            isEmpty = page.messages.isEmpty
            pinnedCount = page.pinnedCount
            olderURL = page.hasOlder ? page.messages.first.map { target.path + "?before=\($0.id)" } : nil
            newerURL = page.hasNewer ? page.messages.last.map { target.path + "?after=\($0.id)" } : nil
            isLatest = !page.hasNewer
            // A HEAD is a script asking whether the session lives, and a prefetch a browser
            // guessing: neither is a person looking.
            if request.isPersonViewing { await lastRooms.viewed(roomId: room.id!, userId: context.userId) }
            if let shownRead {
                preloaded.sidebar.markRead(room.id!)
                // Without the script, the form under the list posts the read (when the unread line shows).
                if page.messages.contains(where: { $0.id > lastRead && $0.authorId != context.userId }) {
                    markReadUpTo = shownRead
                }
            }
        }
        let strings = context.strings
        var page = RoomPage(workspaceId: target.access.workspaceId, roomId: target.room?.id, isChannel: target.isChannel,
                            title: target.title, description: target.room?.description ?? "",
                            memberCountText: strings.format("channel_members_count", target.memberCount),
                            settingsURL: target.settingsURL, isMember: target.isMember, joinURL: target.joinURL,
                            messagesHtml: html, isEmpty: isEmpty, olderURL: olderURL, newerURL: newerURL,
                            isLatest: isLatest, composerAction: target.composerAction,
                            readURL: target.readURL, content: content,
                            contentError: contentError)
        page.canModerate = target.access.isOwner
        page.messageTemplatesHtml = templates
        page.markReadUpTo = markReadUpTo
        page.receiptsJSON = receiptsJSON
        page.isPrivate = target.room?.isPrivate ?? false
        let archived = target.room?.isArchived ?? false
        if archived {
            page.isArchived = true
            if target.access.isOwner || target.room?.ownerId == context.userId {
                page.unarchiveURL = Paths.unarchiveChannel(target.access.workspaceId, target.room!.id!)
            }
        }
        page.confirmMentions = confirmMentions
        page.coverURL = target.room?.coverFileId.map { Paths.thumbnail($0) }
        let slotted = slotURLs.value(for: target.access.workspaceId) { SlotURLs(workspaceId: target.access.workspaceId) }
        Self.describeMessages(on: &page, slotted: slotted, emojiTableURL: pages.assets.url(for: "emoji.tsv"), policy: files.policy,
                              canAct: target.isMember && !(target.room?.isArchived ?? false), inThread: false, strings: strings)
        if target.room != nil {
            page.pinsURL = target.pinsPath
            // Hidden at none; the script writes the count from the link's label when one is pinned.
            (page.hasPins, page.pinsCountText) = (pinnedCount > 0, pinnedCount > 0 ? strings.format("pins_count", pinnedCount) : "")
        }
        if let group = target.group {
            try await describe(group, on: &page, strings: strings)
        }
        if let partner = target.personId {
            page.personId = partner
            // The sidebar read it with the DM; a DM not started yet is not listed there.
            if let listed = reads.sidebar.rooms.first(where: { $0.personId == partner }) {
                page.personStatus = listed.status
            } else {
                page.personStatus = try await statuses.current(of: [partner])[partner]?.label
            }
        }
        page.typingURL = target.typingPath
        if let roomId = target.room?.id, target.isMember, let listed = reads.sidebar.rooms.first(where: { $0.id == roomId }) {
            page.notifyURL = target.notifyPath
            let standard = NotifyLevel(rawValue: context.user.notifyDefault) ?? .standard
            page.notifyChoices = NotifyChoice.forRoom(own: listed.hasOwnNotify ? listed.notify : nil, standard: standard,
                                                      strings: strings)
        }
        // The plain page (not one answering a refused post) can be served again until a commit.
        // Served again, it is a view of the room again (`LastRooms`).
        let headers = status == .ok && content.isEmpty && contentError == nil
            ? RenderedPage.reusable(viewing: target.room?.id) : extra
        return try await pages.render(.room, title: target.title, page: page, request: request, context: context,
                                      place: place, status: status, headers: headers, preloaded: preloaded)
    }

    /// What the page's scripts and composer need to act on messages: the URLs of each action with
    /// the id slot (members of a room that is not archived may react, pin, save and reply; in a
    /// thread, not reply), and the upload limits.
    static func describeMessages(on page: inout RoomPage, slotted: SlotURLs, emojiTableURL: String, policy: UploadPolicy,
                                 canAct: Bool, inThread: Bool, strings: Strings) {
        (page.editMessageURL, page.deleteMessageURL, page.messageIdSlot) = (slotted.edit, slotted.delete, slotted.slot)
        if canAct {
            page.reactMessageURL = slotted.react
            page.emojiTableURL = emojiTableURL
            page.markURLs = slotted.marks
            page.previewRemoveURL = slotted.removePreview
            if !inThread { page.threadURL = slotted.thread }
        }
        let limit = FileService.megabytes(policy.maximumFileBytes)
        (page.maxFiles, page.maxFileBytes) = (policy.maximumFiles, policy.maximumFileBytes)
        page.attachHint = strings.format("attach_hint", policy.maximumFiles, limit)
        page.acceptTypes = UploadPolicy.acceptList
        page.tooLargeText = strings.format("error_file_too_large", limit)
        page.tooManyText = strings.format("error_too_many_files", policy.maximumFiles)
    }

    /// A group's header: its members, who may be added, and the way out.
    private func describe(_ group: GroupRooms.View, on page: inout RoomPage, strings: Strings) async throws {
        let (wid, rid) = (group.access.workspaceId, group.room.id!)
        page.isGroup = true
        page.groupMembers = group.members.map { PersonOption.profile($0.id, $0.nickname) }
        page.leaveURL = Paths.leaveGroup(wid, rid)
        if group.members.count < GroupRooms.sizes.upperBound {
            let inGroup = Set(group.members.map(\.id))
            page.addMemberURL = Paths.groupMembers(wid, rid)
            page.addCandidates = try await members.members(of: wid).filter { !inGroup.contains($0.id) }
                .map { PersonOption.profile($0.id, $0.nickname) }
        }
    }

    // MARK: Pins

    /// A room's pinned messages, the latest pin first; its members may unpin them here.
    private func showPins(_ target: ScopedRoom, _ request: Request, _ context: SignedInContext) async throws -> Response {
        let strings = context.strings
        var found: [CollectedMessage] = []
        if let room = target.room { found = try await pins.list(roomId: room.id!, for: context.userId) }
        var page = MessageCollectionPage(heading: "\(strings["pins_title"]) · \(target.title)", listId: "pin-list",
                                         emptyText: strings["pins_empty"], items: found.map { pinned in
            var item = pinned.item(for: context.userId)
            if target.isMember { item.removeURL = Paths.unpinMessage(target.access.workspaceId, pinned.message.id) }
            return item
        })
        page.removeLabel = strings["pin_remove"]
        (page.backURL, page.backLabel) = (target.path, strings["pins_back"])
        let place: PagePlace = target.room.map { .room(workspace: target.access.workspaceId, room: $0.id!) }
            ?? .workspace(target.access.workspaceId)
        return try await pages.render(.messageCollection, title: strings["pins_title"], page: page, request: request,
                                      context: context, place: place)
    }

    // MARK: Posting

    /// Posts to the room; a DM's room is made only once the message is known to be acceptable.
    private func postMessage(_ target: ScopedRoom, _ request: Request, _ context: SignedInContext) async throws -> Response {
        // Membership is checked before a byte of the body is read.
        _ = try target.joined()
        return try await refusingUploadsInPlace(target, request, context) {
            try await post(target, { [directRooms] in
                if let existing = target.room { return existing }
                guard let person = target.personId else { throw AppError.notFound }
                return try await directRooms.open(target.access, with: person)
            }, try await MessageSubmission.read(request, context, files: files), request, context)
        }
    }

    /// Without JavaScript, a refused upload (too large, wrong type, unreadable image) comes back
    /// as the room page with the reason beside the composer, like any other refused message.
    private func refusingUploadsInPlace(_ target: ScopedRoom, _ request: Request, _ context: SignedInContext,
                                        _ body: () async throws -> Response) async throws -> Response {
        do {
            return try await body()
        } catch let error as AppError where MessagePoster.showsBesideComposer(error, request) {
            let message = context.strings.format(error.messageKey ?? "error_\(error.status.code)_body", arguments: error.arguments)
            return try await show(target, request, context, contentError: message, status: error.status, headers: error.headers)
        }
    }

    private func post(_ target: ScopedRoom, _ room: @escaping @Sendable () async throws -> Room, _ submission: MessageSubmission,
                      _ request: Request, _ context: SignedInContext) async throws -> Response {
        let destination = MessagePoster.Destination(room: room, memberCount: target.memberCount, thread: nil, path: target.path) {
            content, reason, confirm, status in
            try await show(target, request, context, content: content, contentError: reason, confirmMentions: confirm, status: status)
        }
        return try await poster.post(submission, to: destination, request: request, context: context)
    }

    // MARK: Reading markers

    /// Records that the viewer read the room up to the posted `message_id` (else its newest
    /// message); a DM not started yet has nothing to read.
    private func read(_ target: ScopedRoom, _ request: Request, _ context: SignedInContext) async throws -> Response {
        guard let room = try target.joined() else { return Response(status: .noContent) }
        return try await read(target, room, request, context)
    }

    private func read(_ target: ScopedRoom, _ room: Room, _ request: Request, _ context: SignedInContext) async throws -> Response {
        let upTo = try context.form["message_id"].map { text -> Int64 in
            guard let id = Int64(text) else { throw AppError.badRequest }
            return id
        }
        try await messages.markRead(room: room, userId: context.userId, upTo: upTo)
        return Self.wantsJSON(request) ? Response(status: .noContent) : Pages.redirect(to: target.path)
    }

    /// `GET /w/{wid}/unread`: unread and mention counts per room, for the script to
    /// resynchronise badges, `{"counts":{"12":3},"mentions":{"12":1},"eventId":981}`: the counts
    /// include exactly the events up to `eventId`, so the script counts only later messages on
    /// top of them.
    @Sendable func unread(_ request: Request, context: SignedInContext) async throws -> Response {
        let access = try await context.workspaceAccess(workspaces)
        let snapshot = try await messages.unreadSnapshot(workspaceId: access.workspaceId, userId: context.userId)
        let rooms = snapshot.markers.sorted { $0.key < $1.key }
        let counts = rooms.map { (key: String($0.key), value: CompactJSON.Value.int(Int64($0.value.unread))) }
        let mentions = rooms.map { (key: String($0.key), value: CompactJSON.Value.int(Int64($0.value.mentions))) }
        let body = #"{"counts":"# + CompactJSON.object(counts) + #","mentions":"# + CompactJSON.object(mentions)
            + #","eventId":\#(snapshot.eventId)}"#
        return Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
                        body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    // MARK: JSON

    static func wantsJSON(_ request: Request) -> Bool {
        request.headers[.accept]?.contains("application/json") == true
    }

    /// A JSON object answer, keys sorted.
    static func json(_ object: [String: CompactJSON.Value], status: HTTPResponse.Status = .ok) -> Response {
        let fields = object.sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value) }
        return Response(status: status, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
                        body: .init(byteBuffer: ByteBuffer(string: CompactJSON.object(fields))))
    }
}
