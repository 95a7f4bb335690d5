import Hummingbird
import Views

/// `/invite/{token}`: an invitation link. Signed in as the invited address, one button joins;
/// without an account, the sign-up form (email fixed to the invited one) creates it and joins.
struct InviteController: Sendable {
    let members: MembershipService
    let accounts: AccountService
    let sessions: SessionStore
    let cookies: CookiePolicy
    let pages: Pages

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/invite/{token}", use: show)
        router.post("/invite/{token}", use: accept)
    }

    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> Response {
        let token = try token(context)
        guard let (invite, workspace) = try await members.pendingInvite(token: token) else {
            throw AppError.notFound("invite_invalid")
        }
        let strings = context.visitor.strings
        if let user = context.visitor.user {
            let page = InvitePage(token: token, workspaceName: workspace.name, email: invite.email,
                                  wrongAccount: user.emailKey != User.key(forEmail: invite.email))
            return try await pages.render(.invite, title: strings["invite_join_title"], page: page, request: request, context: context)
        }
        return try await pages.render(.signup, title: strings["invite_join_title"],
                                      page: SignupPage(email: invite.email, inviteToken: token), request: request, context: context)
    }

    @Sendable func accept(_ request: Request, context: AppRequestContext) async throws -> Response {
        let token = try token(context)
        guard let (invite, _) = try await members.pendingInvite(token: token) else { throw AppError.notFound("invite_invalid") }
        if let user = context.visitor.user {
            let workspace = try await members.accept(token: token, userId: user.id!)
            return cookies.redirect(to: "/w/\(workspace.id!)", flash: "invite_joined", for: request)
        }
        // Signing up through the invitation: the address is the invited one, whatever was posted.
        var input = SignupInput(form: context.visitor.form ?? FormData(fields: []))
        input.email = invite.email
        input.lang = RequestCookies(request)[CookiePolicy.language].flatMap { Lang(rawValue: $0)?.rawValue }
        let user: User
        do {
            user = try await accounts.signUp(input)
        } catch let problems as FormProblems {
            let page = SignupPage(email: invite.email, nickname: input.nickname, phone: input.phone,
                                  errors: FieldErrors(problems, context.visitor.strings), inviteToken: token)
            return try await pages.render(.signup, title: context.visitor.strings["invite_join_title"], page: page,
                                          request: request, context: context, status: .unprocessableContent)
        }
        let workspace = try await members.accept(token: token, userId: user.id!)
        let (sessionToken, _) = try await sessions.create(userId: user.id!, userAgent: request.headers[.userAgent])
        var response = cookies.redirect(to: "/w/\(workspace.id!)", flash: "invite_joined", for: request)
        response.setCookie(cookies.make(CookiePolicy.session, sessionToken, maxAge: Int(SessionStore.lifetime), for: request))
        return response
    }

    private func token(_ context: AppRequestContext) throws -> String {
        guard let token = context.parameters.get("token"), SessionMiddleware.isWellFormedToken(token) else {
            throw AppError.notFound("invite_invalid")
        }
        return token
    }
}
