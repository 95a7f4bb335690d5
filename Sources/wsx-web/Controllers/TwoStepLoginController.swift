import Hummingbird
import Views

/// `GET|POST /login/2fa`: the second step of signing in to an account with two-step sign-in.
/// The password was checked on the login form, which left a pending cookie (five minutes, this
/// server's own); here the code from the authenticator app, or one of the recovery codes, signs
/// the person in, and "remember this browser" spares them the step for 30 days. Codes are
/// throttled as passwords are, per account and address.
struct TwoStepLoginController: Sendable {
    let accounts: AccountService
    let twoStep: TwoStepService
    let twoStepCookies: TwoStepCookies
    let signIns: SignInResponder
    let throttle: LoginThrottle
    let cookies: CookiePolicy
    let pages: Pages

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get(Paths.twoStepLogin.routerPath, use: form)
        router.post(Paths.twoStepLogin.routerPath, use: verify)
    }

    @Sendable func form(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard twoStepCookies.pending(RequestCookies(request)[TwoStepCookies.pendingName]) != nil else {
            return Pages.redirect(to: Paths.login())
        }
        return try await show(TwoStepLoginPage(action: Paths.twoStepLogin()), request, context)
    }

    @Sendable func verify(_ request: Request, context: AppRequestContext) async throws -> Response {
        let strings = context.visitor.strings
        guard let pending = twoStepCookies.pending(RequestCookies(request)[TwoStepCookies.pendingName]),
              let user = try await accounts.user(id: pending.userId), user.isActive, user.twoStepEnabledAt != nil else {
            // Expired or never begun: the password again.
            return cookies.redirect(to: Paths.login(), flash: "two_step_expired", for: request)
        }
        let form = context.visitor.form ?? FormData(fields: [])
        let remember = form["remember"] == "on"
        let address = context.visitor.address
        let account = "two-step:\(user.id!)"
        let ticket: AttemptLimiter.Ticket
        switch await throttle.begin(account: account, address: address, trustedDevice: false) {
        case .wait(let seconds):
            var response = try await show(TwoStepLoginPage(action: Paths.twoStepLogin(), error: strings.format("login_throttled", seconds),
                                                           remember: remember), request, context, status: .tooManyRequests)
            response.headers[.retryAfter] = String(seconds)
            return response
        case .proceed(let reserved):
            ticket = reserved
        }
        let check = try await twoStep.check(userId: user.id!, typed: form["code"] ?? "")
        await throttle.end(ticket, account: account, address: address, succeeded: check != .wrong)
        let how: String, flash: String?
        switch check {
        case .wrong:
            try await SecurityLog.record(accounts.database, .twoStepFailed, target: user.id, address: address, email: user.email,
                                         at: accounts.clock.now())
            return try await show(TwoStepLoginPage(action: Paths.twoStepLogin(), error: strings["two_step_code_wrong"], remember: remember),
                                  request, context, status: .unauthorized)
        case .code:
            (how, flash) = ("two-step", nil)
        case .recoveryCode(let left):
            try await SecurityLog.record(accounts.database, .recoveryCodeUsed, actor: user.id, target: user.id, address: address,
                                         detail: "\(left) left", at: accounts.clock.now())
            (how, flash) = ("recovery code", left <= 3 ? "two_step_codes_low" : "two_step_code_used")
        }
        var response = try await signIns.signIn(user, request: request, next: pending.next, address: address, how: how, flash: flash)
        response.setCookie(cookies.expire(TwoStepCookies.pendingName, for: request))
        if remember {
            response.setCookie(cookies.make(TwoStepCookies.trustedName, twoStepCookies.trusted(user),
                                            maxAge: TwoStepCookies.trustLifetime, for: request))
        }
        return response
    }

    private func show(_ page: TwoStepLoginPage, _ request: Request, _ context: AppRequestContext,
                      status: HTTPResponse.Status = .ok) async throws -> Response {
        try await pages.render(.twoStepLogin, title: context.visitor.strings["two_step_login_title"], page: page, request: request,
                               context: context, status: status)
    }
}
