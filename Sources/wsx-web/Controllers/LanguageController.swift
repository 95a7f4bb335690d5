import Hummingbird
import Views

/// `POST /lang`: switches the UI language, remembered in a cookie and, for a signed-in user, on
/// their account, then goes back to the page the switch was pressed on.
struct LanguageController: Sendable {
    let accounts: AccountService
    let cookies: CookiePolicy

    static let cookieLifetime = 365 * 24 * 60 * 60

    func addRoutes(to router: Router<AppRequestContext>) {
        router.post(Paths.language.routerPath, use: switchLanguage)
    }

    @Sendable func switchLanguage(_ request: Request, context: AppRequestContext) async throws -> Response {
        let form = context.visitor.form ?? FormData(fields: [])
        guard let lang = form["lang"].flatMap(Lang.init(rawValue:)) else { throw AppError.badRequest }
        if let user = context.visitor.user {
            try await accounts.setLanguage(userId: user.id!, lang: lang.rawValue)
        }
        var response = Pages.redirect(to: LocalPath.validated(form["next"]) ?? "/")
        response.setCookie(cookies.make(CookiePolicy.language, lang.rawValue, maxAge: Self.cookieLifetime, for: request))
        return response
    }
}
