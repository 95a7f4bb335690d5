import Hummingbird
import Views

/// `/invite/{token}`: an invitation. Its page names the workspace and who invited; signed in as
/// the invited address, `POST /invite/{token}` (only `_csrf`) joins and `POST
/// /invite/{token}/decline` declines. Without an account, the sign-up form (email fixed to the
/// invited one) creates it and joins; with one, a link to sign in and come back; with one an
/// import made (no password yet), a form to choose its password, which signs in.
struct InviteController: Sendable {
    let invitations: Invitations
    let accounts: AccountService
    let signIns: SignInResponder
    let cookies: CookiePolicy
    let pages: Pages

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get(Paths.invite.routerPath, use: show)
        router.post(Paths.invite.routerPath, use: accept)
        router.post(Paths.declineInvite.routerPath, use: decline)
    }

    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> Response {
        let token = try token(context)
        guard let found = try invitations.find(token: token) else { throw AppError.notFound("invite_invalid") }
        let user = context.visitor.user
        var page = Self.page(found, token: token, user: user, strings: context.visitor.strings,
                             signup: user == nil ? SignupPage(email: found.invite.email, inviteToken: token) : nil)
        if user == nil, let imported = try accounts.passwordlessAccount(email: found.invite.email) {
            page.signup = nil
            if found.invite.claimsAccount {
                page.claim = InviteClaim(intro: context.visitor.strings.format("invite_claim_intro", imported.nickname))
            } else {
                // Another workspace's invitation to an imported account: its first password is
                // chosen only through the import's own invitation (or a reset mailed to it).
                page.claimRefused = context.visitor.strings["invite_claim_elsewhere"]
            }
        }
        return try await pages.render(.invite, title: context.visitor.strings["invite_join_title"], page: page, request: request,
                                      context: context)
    }

    @Sendable func accept(_ request: Request, context: AppRequestContext) async throws -> Response {
        let token = try token(context)
        guard let found = try invitations.find(token: token) else { throw AppError.notFound("invite_invalid") }
        if let user = context.visitor.user {
            let workspace = try await invitations.accept(token: token, userId: user.id!)
            return cookies.redirect(to: Paths.workspace(workspace.id!), flash: "invite_joined", for: request)
        }
        let form = context.visitor.form ?? FormData(fields: [])
        if let imported = try accounts.passwordlessAccount(email: found.invite.email) {
            guard found.invite.claimsAccount else { throw AppError.forbidden("invite_claim_elsewhere") }
            return try await claim(imported, found: found, token: token, form: form, request: request, context: context)
        }
        // Signing up through the invitation: the address is the invited one, whatever was posted.
        // (Such sign-ups do not count against the per-address sign-up limit.)
        var input = SignupInput(form: form)
        input.email = found.invite.email
        input.lang = RequestCookies(request)[CookiePolicy.language].flatMap { Lang(rawValue: $0)?.rawValue }
        let user: User
        do {
            user = try await accounts.signUp(input)
        } catch let problems as FormProblems {
            let strings = context.visitor.strings
            let page = Self.page(found, token: token, user: nil, strings: strings,
                                 signup: SignupPage(email: found.invite.email, nickname: input.nickname, phone: input.phone,
                                                    errors: FieldErrors(problems, strings), inviteToken: token))
            return try await pages.render(.invite, title: strings["invite_join_title"], page: page, request: request,
                                          context: context, status: .unprocessableContent)
        }
        return try await joinAndSignIn(user, token: token, request: request, address: context.visitor.address)
    }

    /// An account an import made: following its invitation (sent to its address), its person
    /// chooses its first password, joins (a member already: the invitation is used) and is in.
    private func claim(_ imported: User, found: Invitations.Found, token: String, form: FormData, request: Request,
                       context: AppRequestContext) async throws -> Response {
        let user: User
        do {
            user = try await accounts.choosePassword(userId: imported.id!, password: form["password"] ?? "",
                                                     confirmation: form["password_confirm"] ?? "")
        } catch let problems as FormProblems {
            let strings = context.visitor.strings
            var page = Self.page(found, token: token, user: nil, strings: strings, signup: nil)
            page.claim = InviteClaim(intro: strings.format("invite_claim_intro", imported.nickname),
                                     errors: FieldErrors(problems, strings))
            return try await pages.render(.invite, title: strings["invite_join_title"], page: page, request: request,
                                          context: context, status: .unprocessableContent)
        }
        return try await joinAndSignIn(user, token: token, request: request, address: context.visitor.address)
    }

    private func joinAndSignIn(_ user: User, token: String, request: Request, address: String) async throws -> Response {
        let workspace = try await invitations.accept(token: token, userId: user.id!)
        return try await signIns.signIn(user, request: request, next: Paths.workspace(workspace.id!), address: address,
                                        how: "invitation", flash: "invite_joined")
    }

    @Sendable func decline(_ request: Request, context: AppRequestContext) async throws -> Response {
        let token = try token(context)
        try await invitations.decline(token: token, userId: context.visitor.user?.id)
        return cookies.redirect(to: context.visitor.user == nil ? Paths.root() : Paths.workspaces(), flash: "invite_declined", for: request)
    }

    /// The invitation's page for this visitor.
    static func page(_ found: Invitations.Found, token: String, user: User?, strings: Strings, signup: SignupPage?) -> InvitePage {
        var page = InvitePage(token: token, workspaceName: found.workspace.name, inviterNickname: found.inviterNickname,
                              email: found.invite.email, expiresAt: Timestamps.iso(found.invite.expiresAt),
                              expiresText: Timestamps.utcText(found.invite.expiresAt), signedIn: user != nil,
                              wrongAccount: user.map { $0.emailKey != found.invite.emailKey } ?? false, signup: signup,
                              acceptURL: Paths.invite(token), declineURL: Paths.declineInvite(token),
                              loginURL: Paths.login(query: Paths.query(["next": Paths.invite(token)])))
        page.invitedByText = strings.format("invite_from", found.inviterNickname)
        return page
    }

    private func token(_ context: AppRequestContext) throws -> String {
        guard let token = context.parameters.get("token"), SessionMiddleware.isWellFormedToken(token) else {
            throw AppError.notFound("invite_invalid")
        }
        return token
    }
}
