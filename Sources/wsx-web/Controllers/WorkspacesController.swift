import Hummingbird
import Views

/// `/workspaces`: the signed-in user's workspaces; a new account sees how to create the first.
struct WorkspacesController: Sendable {
    let pages: Pages

    func addRoutes(to group: RouterGroup<SignedInContext>) {
        group.get("/workspaces", use: list)
    }

    @Sendable func list(_ request: Request, context: SignedInContext) async throws -> Response {
        let page = WorkspacesPage(workspaces: [])
        let title = context.visitor.strings[page.isEmpty ? "workspaces_empty_title" : "workspaces_title"]
        return pages.render(.workspaces, title: title, page: page, request: request, context: context)
    }
}
