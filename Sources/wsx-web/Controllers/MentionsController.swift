import Hummingbird
import Views

/// `GET /w/{wid}/mentions`: the viewer's recent mentions in the workspace.
struct MentionsController: Sendable {
    let workspaces: WorkspaceService
    let mentions: MentionList
    let pages: Pages

    func addRoutes(to group: RouterGroup<SignedInContext>) {
        group.get(Paths.mentions.routerPath, use: show)
    }

    @Sendable func show(_ request: Request, context: SignedInContext) async throws -> Response {
        let access = try await context.workspaceAccess(workspaces)
        let entries = try await mentions.recent(userId: context.userId, workspaceId: access.workspaceId)
        let items = entries.map { entry in
            let roomURL = MessagesController.path(of: entry.room, for: context.userId)
            let message = entry.message
            return MentionItem(roomLabel: entry.partnerName ?? "#" + entry.room.name, roomURL: roomURL,
                               author: message.authorNickname ?? "—", timestamp: Timestamps.iso(message.createdAt),
                               timeText: Timestamps.utcText(message.createdAt), bodyHtml: message.bodyHtml,
                               url: "\(roomURL)?around=\(message.id)#m-\(message.id)")
        }
        return try await pages.render(.mentions, title: context.strings["mentions_title"], page: MentionsPage(items: items),
                                      request: request, context: context, place: .workspace(access.workspaceId))
    }
}
