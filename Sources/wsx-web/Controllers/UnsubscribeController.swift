import Hummingbird
import Views

/// `GET|POST /unsubscribe/{token}`: the digest mail's way out. The page asks once; mail
/// programs post straight to it (RFC 8058 one-click: `List-Unsubscribe=One-Click`, no cookie and
/// so no CSRF token: the token in the address is the proof, made by this server for one person).
struct UnsubscribeController: Sendable {
    let accounts: AccountService
    let serverKey: ServerKey
    let cookies: CookiePolicy
    let pages: Pages

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get(Paths.unsubscribe.routerPath, use: ask)
        router.post(Paths.unsubscribe.routerPath, use: unsubscribe)
    }

    @Sendable func ask(_ request: Request, context: AppRequestContext) async throws -> Response {
        let token = try token(context)
        let strings = context.visitor.strings
        let page = ConfirmPage(heading: strings["unsubscribe_title"], consequences: [strings["unsubscribe_intro"]],
                               action: Paths.unsubscribe(token), button: strings["unsubscribe_submit"], cancelURL: Paths.root())
        return try await pages.render(.confirm, title: strings["unsubscribe_title"], page: page, request: request, context: context)
    }

    @Sendable func unsubscribe(_ request: Request, context: AppRequestContext) async throws -> Response {
        let userId = try DigestMailer.unsubscriber(token(context), key: serverKey) ?? { throw AppError.notFound("unsubscribe_invalid") }()
        try await accounts.setMailDigest(false, userId: userId)
        var response = Pages.redirect(to: Paths.root())
        response.setCookie(cookies.flash("unsubscribe_done", for: request))
        return response
    }

    private func token(_ context: AppRequestContext) throws -> String {
        guard let token = context.parameters.get("token"), token.utf8.count < 100,
              DigestMailer.unsubscriber(token, key: serverKey) != nil else {
            throw AppError.notFound("unsubscribe_invalid")
        }
        return token
    }
}
