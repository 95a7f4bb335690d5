import Hummingbird
import Views

/// `/confirm/{token}`: the link mailed to confirm an address. The link's page asks for a click
/// (a mail scanner that fetches links confirms nothing); the click confirms, and invitations
/// waiting for the address show on the person's workspaces page. `POST /profile/confirm` mails
/// a new link.
struct EmailConfirmationController: Sendable {
    let confirmations: EmailConfirmations
    let cookies: CookiePolicy
    let pages: Pages

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get(Paths.confirmEmail.routerPath, use: show)
        router.post(Paths.confirmEmail.routerPath, use: confirm)
    }

    func addRoutes(to group: RouterGroup<SignedInContext>) {
        group.post(Paths.profileConfirm.routerPath, use: resend)
    }

    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> Response {
        let token = try token(context)
        guard let user = try confirmations.account(token: token) else { throw AppError.notFound("confirm_invalid") }
        let strings = context.visitor.strings
        let page = ConfirmPage(heading: strings["confirm_email_title"], consequences: [strings.format("confirm_email_body", user.email)],
                               action: Paths.confirmEmail(token), button: strings["confirm_email_button"], cancelURL: Paths.root(),
                               isDanger: false)
        return try await pages.render(.confirm, title: strings["confirm_email_title"], page: page, request: request, context: context)
    }

    @Sendable func confirm(_ request: Request, context: AppRequestContext) async throws -> Response {
        let token = try token(context)
        guard try await confirmations.confirm(token: token, address: context.visitor.address) != nil else {
            throw AppError.notFound("confirm_invalid")
        }
        return cookies.redirect(to: context.visitor.user == nil ? Paths.login() : Paths.workspaces(), flash: "email_confirmed",
                                for: request)
    }

    @Sendable func resend(_ request: Request, context: SignedInContext) async throws -> Response {
        try await confirmations.send(to: context.user, lang: context.visitor.lang)
        return cookies.redirect(to: Paths.profile(), flash: "confirm_email_sent", for: request)
    }

    private func token(_ context: AppRequestContext) throws -> String {
        guard let token = context.parameters.get("token"), SessionMiddleware.isWellFormedToken(token) else {
            throw AppError.notFound("confirm_invalid")
        }
        return token
    }
}
