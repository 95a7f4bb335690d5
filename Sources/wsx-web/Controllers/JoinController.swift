import Hummingbird
import Views

/// `GET|POST /join/{token}`: a workspace's open join link. Signed in: one click joins (someone
/// already in it just goes there). Signed out: sign up or log in, then back here. A link that
/// expired, was used up, reset or turned off is a 404 that says so.
struct JoinController: Sendable {
    let joinLinks: JoinLinks
    let workspaces: WorkspaceService
    let cookies: CookiePolicy
    let pages: Pages

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get(Paths.join.routerPath, use: show)
        router.post(Paths.join.routerPath, use: join)
    }

    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> Response {
        let token = try token(context)
        guard let found = try joinLinks.find(token: token) else { throw AppError.notFound("join_link_invalid") }
        let strings = context.visitor.strings
        let workspaceId = found.workspace.id!
        var isMember = false
        if let user = context.visitor.user {
            isMember = (try? await workspaces.access(workspaceId: workspaceId, userId: user.id!)) != nil
        }
        let here = Paths.join(token)
        let page = JoinPage(workspaceName: found.workspace.name, fromText: strings.format("join_from", found.creatorNickname),
                            signedIn: context.visitor.user != nil, isMember: isMember, actionURL: here,
                            signupURL: Paths.signup(query: Paths.query(["next": here])),
                            loginURL: Paths.login(query: Paths.query(["next": here])), workspaceURL: Paths.workspace(workspaceId))
        return try await pages.render(.join, title: strings["join_title"], page: page, request: request, context: context)
    }

    @Sendable func join(_ request: Request, context: AppRequestContext) async throws -> Response {
        let token = try token(context)
        guard let user = context.visitor.user else {
            return Pages.redirect(to: Paths.login(query: Paths.query(["next": Paths.join(token)])))
        }
        let workspace = try await joinLinks.join(token: token, userId: user.id!)
        return cookies.redirect(to: Paths.workspace(workspace.id!), flash: "invite_joined", for: request)
    }

    private func token(_ context: AppRequestContext) throws -> String {
        guard let token = context.parameters.get("token"), SessionMiddleware.isWellFormedToken(token) else {
            throw AppError.notFound("join_link_invalid")
        }
        return token
    }
}
