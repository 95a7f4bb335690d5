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
        let strings = context.strings
        let page = MessageCollectionPage(heading: strings["mentions_title"], listId: "mention-list", emptyText: strings["mentions_empty"],
                                         items: entries.map { $0.item(for: context.userId) })
        return try await pages.render(.messageCollection, title: strings["mentions_title"], page: page,
                                      request: request, context: context, place: .workspace(access.workspaceId))
    }
}
