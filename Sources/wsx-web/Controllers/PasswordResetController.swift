import Hummingbird
import Views

/// `/reset/{token}`: the one-time link an operator prints with `wsx-web user reset-password`.
struct PasswordResetController: Sendable {
    let accounts: AccountService
    let cookies: CookiePolicy
    let pages: Pages

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get(Paths.passwordReset.routerPath, use: form)
        router.post(Paths.passwordReset.routerPath, use: reset)
    }

    @Sendable func form(_ request: Request, context: AppRequestContext) async throws -> Response {
        let token = try token(context)
        guard let user = try await accounts.accountForReset(token: token) else { throw AppError.notFound("reset_invalid") }
        return try await pages.render(.resetPassword, title: context.visitor.strings["reset_title"],
                            page: ResetPasswordPage(token: token, email: user.email, actionURL: Paths.passwordReset(token)), request: request, context: context)
    }

    @Sendable func reset(_ request: Request, context: AppRequestContext) async throws -> Response {
        let token = try token(context)
        let form = context.visitor.form ?? FormData(fields: [])
        do {
            _ = try await accounts.completeReset(token: token, password: form["password"] ?? "",
                                                 confirmation: form["password_confirm"] ?? "")
        } catch AccountError.invalidResetLink {
            throw AppError.notFound("reset_invalid")
        } catch let problems as FormProblems {
            guard let user = try await accounts.accountForReset(token: token) else { throw AppError.notFound("reset_invalid") }
            let page = ResetPasswordPage(token: token, email: user.email, errors: FieldErrors(problems, context.visitor.strings),
                                         actionURL: Paths.passwordReset(token))
            return try await pages.render(.resetPassword, title: context.visitor.strings["reset_title"], page: page,
                                request: request, context: context, status: .unprocessableContent)
        }
        var response = Pages.redirect(to: Paths.login())
        // The reset signed the account out everywhere, this browser included.
        response.setCookie(cookies.expire(CookiePolicy.session, for: request))
        response.setCookie(cookies.flash("reset_done", for: request))
        return response
    }

    private func token(_ context: AppRequestContext) throws -> String {
        guard let token = context.parameters.get("token"), SessionMiddleware.isWellFormedToken(token) else {
            throw AppError.notFound("reset_invalid")
        }
        return token
    }
}
