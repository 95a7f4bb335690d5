import Foundation
import Hummingbird
import Views

/// `/w/{wid}/m/{mid}/reactions`: who reacted with what, and toggling the viewer's own reaction
/// (`emoji` = the emoji itself). Room members only; everyone else gets the 404 of a message
/// they cannot see. Scripts get JSON; without one, a page with the common reactions.
struct ReactionsController: Sendable {
    let workspaces: WorkspaceService
    let reactions: ReactionService
    let pins: PinService
    let saved: SavedMessages
    let pages: Pages

    func addRoutes(to group: RouterGroup<SignedInContext>) {
        group.get(Paths.messageReactions.routerPath, use: show)
        group.post(Paths.messageReactions.routerPath, use: toggle)
    }

    @Sendable func show(_ request: Request, context: SignedInContext) async throws -> Response {
        let access = try await context.workspaceAccess(workspaces)
        let mid = try context.id("mid")
        let (row, room, groups) = try await reactions.reactions(messageId: mid, in: access)
        if RoomsController.wantsJSON(request) {
            return Pages.json(ReactionsPayload(workspaceId: room.workspaceId, roomId: room.id!, messageId: mid, groups: groups))
        }
        return try await page(row: row, room: room, groups: groups, request: request, context: context)
    }

    @Sendable func toggle(_ request: Request, context: SignedInContext) async throws -> Response {
        let access = try await context.workspaceAccess(workspaces)
        let mid = try context.id("mid")
        do {
            let (room, groups) = try await reactions.toggle(messageId: mid, in: access, emoji: context.form["emoji"] ?? "")
            if RoomsController.wantsJSON(request) {
                return Pages.json(ReactionsPayload(workspaceId: room.workspaceId, roomId: room.id!, messageId: mid, groups: groups))
            }
            // Back to the message where it is shown (a reply in its thread).
            let (row, _, _) = try await reactions.reactions(messageId: mid, in: access)
            return Pages.redirect(to: row.link(in: room, for: context.userId))
        } catch let refusal as AppError where refusal.status != .notFound && !RoomsController.wantsJSON(request) {
            // Not an emoji, or one emoji too many: the page again, saying so.
            let (row, room, groups) = try await reactions.reactions(messageId: mid, in: access)
            let message = context.strings.format(refusal.messageKey ?? "error_reaction_emoji", arguments: refusal.arguments)
            return try await page(row: row, room: room, groups: groups, error: message, status: refusal.status,
                                  request: request, context: context)
        }
    }

    private func page(row: MessageRow, room: Room, groups: [ReactionGroup], error: String? = nil,
                      status: HTTPResponse.Status = .ok, request: Request, context: SignedInContext) async throws -> Response {
        let viewer = context.userId, lang = context.visitor.lang
        let chips = groups.map { ReactionChip(emoji: $0.emoji, userIds: $0.userIds, names: $0.names, viewer: viewer) }
        let mine = Set(groups.filter { $0.userIds.contains(viewer) }.map(\.emoji))
        let choices = EmojiCatalog.common.compactMap { emoji in
            reactions.catalog.entry(for: emoji).map { ReactionChoice(emoji: $0.emoji, name: $0.name(in: lang), pressed: mine.contains($0.emoji)) }
        }
        var view = ReactionsPage(author: row.authorNickname ?? "—", snippet: MessageText.snippet(row.body), chips: chips,
                                 choices: choices, action: Paths.messageReactions(room.workspaceId, row.id),
                                 backURL: row.link(in: room, for: viewer), error: error)
        let (isPinned, isSaved) = try await (pins.isPinned(messageId: row.id), saved.isSaved(messageId: row.id, userId: viewer))
        let strings = context.strings, wid = room.workspaceId
        view.toggles = [
            MessageToggle(action: isPinned ? Paths.unpinMessage(wid, row.id) : Paths.pinMessage(wid, row.id),
                          label: strings[isPinned ? "pin_remove" : "pin_add"], kind: "message-pin", isOn: isPinned),
            MessageToggle(action: isSaved ? Paths.unsaveMessage(wid, row.id) : Paths.saveMessage(wid, row.id),
                          label: strings[isSaved ? "saved_remove" : "saved_add"], kind: "message-save", isOn: isSaved),
        ]
        return try await pages.render(.reactionsPage, title: context.strings["reactions_title"], page: view, request: request,
                                      context: context, place: .room(workspace: room.workspaceId, room: room.id!), status: status)
    }
}
