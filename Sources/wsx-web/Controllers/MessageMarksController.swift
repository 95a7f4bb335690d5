import Foundation
import Hummingbird
import Views

/// Pinning a message for its room (`/w/{wid}/m/{mid}/pin`, `/unpin`), saving it for oneself
/// (`/save`, `/unsave`), and the viewer's Saved view (`GET /w/{wid}/saved`). Room members only;
/// everyone else gets the 404 of a message they cannot see. Scripts get the new state as JSON;
/// forms are sent back where they came from.
struct MessageMarksController: Sendable {
    let workspaces: WorkspaceService
    let pins: PinService
    let saved: SavedMessages
    let pages: Pages

    func addRoutes(to group: RouterGroup<SignedInContext>) {
        group.post(Paths.pinMessage.routerPath) { request, context in try await pin(request, context, on: true) }
        group.post(Paths.unpinMessage.routerPath) { request, context in try await pin(request, context, on: false) }
        group.post(Paths.saveMessage.routerPath) { request, context in try await save(request, context, on: true) }
        group.post(Paths.unsaveMessage.routerPath) { request, context in try await save(request, context, on: false) }
        group.get(Paths.saved.routerPath, use: showSaved)
    }

    private func pin(_ request: Request, _ context: SignedInContext, on: Bool) async throws -> Response {
        let access = try await context.workspaceAccess(workspaces)
        let mid = try context.id("mid")
        let (room, payload) = try await pins.set(messageId: mid, pinned: on, in: access)
        return try await answer(payload, room: room, messageId: mid, request: request, context: context)
    }

    private func save(_ request: Request, _ context: SignedInContext, on: Bool) async throws -> Response {
        let access = try await context.workspaceAccess(workspaces)
        let mid = try context.id("mid")
        let (room, payload) = try await saved.set(messageId: mid, saved: on, in: access)
        return try await answer(payload, room: room, messageId: mid, request: request, context: context)
    }

    /// JSON for scripts; otherwise back to the page the form was on (the Saved view, a room's
    /// pins, the message's own page, its thread), or else to the message where it is shown.
    private func answer(_ payload: some Encodable & Sendable, room: Room, messageId: Int64, request: Request,
                        context: SignedInContext) async throws -> Response {
        if RoomsController.wantsJSON(request) { return Pages.json(payload) }
        let roomPath = room.path(for: context.userId)
        let row = try await pins.database.queryOffLoop { tx in try tx.messages.row(id: messageId, hasFiles: false) }
        return Pages.redirect(to: Self.returnPath(request, allowed: [
            Paths.saved(room.workspaceId), roomPath + "/pins", Paths.messageReactions(room.workspaceId, messageId),
            Paths.thread(room.workspaceId, row.threadRootId ?? messageId), Paths.threads(room.workspaceId),
        ]) ?? row.link(in: room, for: context.userId))
    }

    /// The path of the same-origin page that sent the form, when it is one of `allowed`.
    static func returnPath(_ request: Request, allowed: [String]) -> String? {
        guard let referer = request.headers[.referer], let url = URL(string: referer) else { return nil }
        return allowed.contains(url.path) ? url.path : nil
    }

    @Sendable func showSaved(_ request: Request, context: SignedInContext) async throws -> Response {
        let access = try await context.workspaceAccess(workspaces)
        let strings = context.strings
        let entries = try await saved.list(userId: context.userId, workspaceId: access.workspaceId)
        var page = MessageCollectionPage(heading: strings["saved_title"], listId: "saved-list", emptyText: strings["saved_empty"],
                                         items: entries.map { entry in
            var item = entry.item(for: context.userId)
            item.removeURL = Paths.unsaveMessage(access.workspaceId, entry.message.id)
            return item
        })
        page.removeLabel = strings["saved_remove"]
        return try await pages.render(.messageCollection, title: strings["saved_title"], page: page,
                                      request: request, context: context, place: .workspace(access.workspaceId))
    }
}
