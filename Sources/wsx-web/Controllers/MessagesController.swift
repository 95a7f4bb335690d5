import Hummingbird
import Views

/// `/w/{wid}/m/{mid}/edit`, `/delete` and `/preview/remove`: changing a message after it was
/// sent. The author edits and takes its link preview off; the author or the workspace owner
/// deletes (after confirming: a message's Delete is a link to the question, `GET …/delete`,
/// which a script asks in place; the page carries no form per message).
struct MessagesController: Sendable {
    let workspaces: WorkspaceService
    let messages: MessageService
    let lists: MessageListRenderer
    let files: FileService
    let linkPreviews: LinkPreviewService
    /// Edits come out of the author's post allowance (`--post-burst`, `--posts-per-second`).
    let rateLimiter: AccountRateLimiter
    let cookies: CookiePolicy
    let pages: Pages

    func addRoutes(to group: RouterGroup<SignedInContext>) {
        group.get(Paths.editMessage.routerPath, use: source)
        group.post(Paths.editMessage.routerPath, use: edit)
        group.get(Paths.deleteMessage.routerPath, use: askToDelete)
        group.post(Paths.deleteMessage.routerPath, use: delete)
        group.post(Paths.removePreview.routerPath, use: removePreview)
    }

    /// The author takes the link preview card off their message (scripts get 204).
    @Sendable func removePreview(_ request: Request, context: SignedInContext) async throws -> Response {
        let access = try await context.workspaceAccess(workspaces)
        let mid = try context.id("mid")
        let (row, room) = try await messages.visibleMessage(id: mid, access)
        try await linkPreviews.remove(messageId: mid, in: access)
        if RoomsController.wantsJSON(request) { return Response(status: .noContent) }
        return Pages.redirect(to: row.link(in: room, for: context.userId))
    }

    /// `GET …/edit`: the text as its author wrote it (Markdown and all), for editing in place;
    /// without a script, the room's page with the edit form.
    @Sendable func source(_ request: Request, context: SignedInContext) async throws -> Response {
        let access = try await context.workspaceAccess(workspaces)
        let mid = try context.id("mid")
        let (row, room) = try await messages.visibleMessage(id: mid, access)
        guard row.authorId == context.userId, !row.isDeleted else { throw AppError.forbidden("error_message_author_only") }
        guard RoomsController.wantsJSON(request) else {
            if let root = row.threadRootId {
                return Pages.redirect(to: Paths.thread(access.workspaceId, root, query: "edit=\(mid)", fragment: "m-\(mid)"))
            }
            return Pages.redirect(to: Paths.message(mid, on: room.path(for: context.userId), editing: true))
        }
        return RoomsController.json(["content": .string(row.body), "id": .int(mid)])
    }

    @Sendable func edit(_ request: Request, context: SignedInContext) async throws -> Response {
        let access = try await context.workspaceAccess(workspaces)
        let mid = try context.id("mid")
        let (row, room) = try await messages.visibleMessage(id: mid, access)
        try rateLimiter.charge(.post, userId: context.userId)
        do {
            let edited = try await messages.edit(messageId: mid, in: access, text: context.form["content"] ?? "")
            if RoomsController.wantsJSON(request) {
                return RoomsController.json(["html": .string(edited.html), "id": .int(edited.id)])
            }
            return Pages.redirect(to: row.link(in: room, for: context.userId))
        } catch let problems as FormProblems {
            let message = FieldErrors(problems, context.strings).content ?? ""
            if RoomsController.wantsJSON(request) {
                return RoomsController.json(["error": .string(message)], status: .unprocessableContent)
            }
            return await pages.error(status: .unprocessableContent, messageKey: problems.messages[.content], requestId: nil,
                                     request: request, visitor: context.visitor)
        }
    }

    /// The message `mid`, if the viewer may delete it (its author or the workspace's owner).
    private func deletable(_ context: SignedInContext) async throws -> (WorkspaceAccess, Int64, MessageRow, Room) {
        let access = try await context.workspaceAccess(workspaces)
        let mid = try context.id("mid")
        let (row, room) = try await messages.visibleMessage(id: mid, access)
        guard row.authorId == context.userId || access.isOwner else { throw AppError.forbidden("error_message_delete_rights") }
        return (access, mid, row, room)
    }

    /// `GET …/delete`: the question, with a form that deletes (a message's Delete link without a
    /// script). Changes nothing.
    @Sendable func askToDelete(_ request: Request, context: SignedInContext) async throws -> Response {
        let (access, mid, row, room) = try await deletable(context)
        return try await question(access, mid, row, room, request: request, context: context)
    }

    private func question(_ access: WorkspaceAccess, _ mid: Int64, _ row: MessageRow, _ room: Room,
                          request: Request, context: SignedInContext) async throws -> Response {
        let page = ConfirmPage(heading: context.strings["confirm_delete_message"],
                               consequences: [MessageText.snippet(row.body)],
                               action: Paths.deleteMessage(access.workspaceId, mid), button: context.strings["message_delete"],
                               cancelURL: row.link(in: room, for: context.userId))
        return try await pages.render(.confirm, title: page.heading, page: page, request: request, context: context,
                                      place: .room(workspace: access.workspaceId, room: room.id!))
    }

    @Sendable func delete(_ request: Request, context: SignedInContext) async throws -> Response {
        let (access, mid, row, room) = try await deletable(context)
        guard context.isConfirmed else { return try await question(access, mid, row, room, request: request, context: context) }
        // A reply's page is its thread's.
        var path = row.threadRootId.map { Paths.thread(access.workspaceId, $0) } ?? room.path(for: context.userId)
        let hashes = try await files.hashes(in: .message(mid))
        _ = try await messages.delete(messageId: mid, in: access)
        try await files.collectGarbage(candidates: hashes)
        // A placeholder root goes with its last reply, and its thread with it: back to the room.
        if let root = row.threadRootId, (try? await messages.visibleMessage(id: root, access)) == nil {
            path = room.path(for: context.userId)
        }
        if RoomsController.wantsJSON(request) { return Response(status: .noContent) }
        return cookies.redirect(to: path, flash: "message_deleted", for: request)
    }
}
