import Hummingbird
import Logging
import Views

/// Sign-up (as `--signup` allows), log-in (a second step for accounts with two-step sign-in,
/// a clear refusal for deactivated ones; every attempt in the security log) and log-out.
struct AuthController: Sendable {
    let accounts: AccountService
    let sessions: SessionStore
    let signIns: SignInResponder
    let throttle: LoginThrottle
    let signups: SignupLimiter
    let policy: SignupPolicy
    /// A join link in `next` lets its holder sign up whatever the policy.
    let joinLinks: JoinLinks
    /// Mails a new account's person a link to confirm their address (with `--smtp-url`).
    let confirmations: EmailConfirmations
    let twoStep: TwoStepCookies
    let cookies: CookiePolicy
    let pages: Pages

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get(Paths.signup.routerPath, use: signupForm)
        router.post(Paths.signup.routerPath, use: signup)
        router.get(Paths.login.routerPath, use: loginForm)
        router.post(Paths.login.routerPath, use: login)
        router.post(Paths.logout.routerPath, use: logout)
    }

    @Sendable func signupForm(_ request: Request, context: AppRequestContext) async throws -> Response {
        let next = LocalPath.validated(request.uri.queryParameters["next"].map(String.init))
        if context.visitor.user != nil { return Pages.redirect(to: next ?? Paths.root()) }
        var page = SignupPage(next: next)
        try describePolicy(&page, next: next, strings: context.visitor.strings)
        return try await pages.render(.signup, title: context.visitor.strings["signup_title"], page: page,
                                      request: request, context: context)
    }

    /// What the page says of who may sign up, and whether it shows the form at all.
    private func describePolicy(_ page: inout SignupPage, next: String?, strings: Strings) throws {
        guard try !invited(next: next), try accounts.hasAccounts() else { return }
        switch policy.mode {
        case .open: break
        case .invite:
            page.closed = true
            page.policyNote = strings["signup_invite_only"]
        case .domain:
            page.policyNote = strings.format("signup_domains", policy.domains.map { "@" + $0 }.joined(separator: ", "))
        }
    }

    /// Whether `next` is a live join link: its holder was asked in.
    private func invited(next: String?) throws -> Bool {
        guard let next, Paths.join.matches(next), let token = next.split(separator: "/").last,
              SessionMiddleware.isWellFormedToken(String(token)) else { return false }
        return try joinLinks.find(token: String(token)) != nil
    }

    @Sendable func signup(_ request: Request, context: AppRequestContext) async throws -> Response {
        var input = SignupInput(form: context.visitor.form ?? FormData(fields: []))
        input.lang = chosenLanguage(request)
        let next = LocalPath.validated(context.visitor.form?["next"])
        let strings = context.visitor.strings
        func form(_ errors: FieldErrors, notice: String? = nil, status: HTTPResponse.Status,
                  headers: HTTPFields = [:]) async throws -> Response {
            var page = SignupPage(email: input.email, nickname: input.nickname, phone: input.phone, errors: errors, notice: notice,
                                  next: next)
            try describePolicy(&page, next: next, strings: strings)
            return try await pages.render(.signup, title: strings["signup_title"], page: page, request: request,
                                          context: context, status: status, headers: headers)
        }
        switch policy.refusal(email: input.email, firstAccount: try !accounts.hasAccounts(), invited: try invited(next: next)) {
        case .invitationOnly?:
            return try await form(FieldErrors(), status: .forbidden)
        case .otherDomain?:
            var errors = FieldErrors()
            errors.email = strings.format("signup_domain_refused", policy.domains.map { "@" + $0 }.joined(separator: ", "))
            return try await form(errors, status: .unprocessableContent)
        case nil:
            break
        }
        // Reserved before the password is hashed: a flood is refused without hashing anything.
        let ticket: AttemptLimiter.Ticket
        switch await signups.begin(address: context.visitor.address) {
        case .wait(let seconds):
            let minutes = max(1, (seconds + 59) / 60)
            return try await form(FieldErrors(), notice: strings.format("signup_throttled", minutes), status: .tooManyRequests,
                                  headers: [.retryAfter: String(seconds)])
        case .proceed(let reserved):
            ticket = reserved
        }
        let user: User
        do {
            user = try await accounts.signUp(input, address: context.visitor.address)
        } catch let problems as FormProblems {
            await signups.end(ticket, created: false)
            return try await form(FieldErrors(problems, strings), status: .unprocessableContent)
        } catch {
            await signups.end(ticket, created: false)
            throw error
        }
        await signups.end(ticket, created: true)
        try await confirmations.send(to: user, lang: context.visitor.lang)
        return try await signIns.signIn(user, request: request, next: next ?? Paths.root(), address: context.visitor.address,
                                        how: "sign-up")
    }

    @Sendable func loginForm(_ request: Request, context: AppRequestContext) async throws -> Response {
        let next = LocalPath.validated(request.uri.queryParameters["next"].map(String.init))
        if context.visitor.user != nil { return Pages.redirect(to: next ?? Paths.root()) }
        return try await pages.render(.login, title: context.visitor.strings["login_title"], page: LoginPage(next: next),
                            request: request, context: context)
    }

    @Sendable func login(_ request: Request, context: AppRequestContext) async throws -> Response {
        let form = context.visitor.form ?? FormData(fields: [])
        let email = (form["email"] ?? "").cleanedLine
        let next = LocalPath.validated(form["next"])
        let strings = context.visitor.strings
        let account = User.key(forEmail: email)
        let address = context.visitor.address

        func refuse(_ message: String, status: HTTPResponse.Status, headers: HTTPFields = [:]) async throws -> Response {
            try await pages.render(.login, title: strings["login_title"], page: LoginPage(email: email, error: message, next: next),
                         request: request, context: context, status: status, headers: headers)
        }

        // The attempt is reserved before the password is checked: parallel guesses cannot all
        // slip under the limit, and a refused one hashes nothing.
        let trusted = signIns.devices.vouches(RequestCookies(request)[DeviceCookie.name], forAccount: account)
        let ticket: AttemptLimiter.Ticket
        switch await throttle.begin(account: account, address: address, trustedDevice: trusted) {
        case .wait(let seconds):
            return try await refuse(strings.format("login_throttled", seconds), status: .tooManyRequests,
                                    headers: [.retryAfter: String(seconds)])
        case .proceed(let reserved):
            ticket = reserved
        }
        let found: User?
        do {
            found = try await accounts.authenticate(email: email, password: form["password"] ?? "")
        } catch {
            await throttle.end(ticket, account: account, address: address, succeeded: false)
            throw error
        }
        await throttle.end(ticket, account: account, address: address, succeeded: found != nil)
        guard let user = found else {
            context.logger.notice("failed sign-in", metadata: ["address": "\(address)"])
            try await SecurityLog.record(accounts.database, .signInFailed, address: address, email: email, at: accounts.clock.now())
            return try await refuse(strings["login_failed"], status: .unauthorized)
        }
        // Said only after the right password: a guesser learns nothing of who was deactivated.
        guard user.isActive else {
            try await SecurityLog.record(accounts.database, .signInRefused, target: user.id, address: address, email: user.email,
                                         detail: "deactivated", at: accounts.clock.now())
            return try await refuse(strings["login_deactivated"], status: .forbidden)
        }
        if user.lang == nil, let lang = chosenLanguage(request) {
            try await accounts.setLanguage(userId: user.id!, lang: lang)
        }
        let destination = next ?? Paths.root()
        if user.twoStepEnabledAt != nil, !twoStep.trusts(RequestCookies(request)[TwoStepCookies.trustedName], user: user) {
            // The password was right; the code comes next, on a page of its own.
            var response = Pages.redirect(to: Paths.twoStepLogin())
            response.setCookie(cookies.make(TwoStepCookies.pendingName, twoStep.pending(userId: user.id!, next: destination, remember: false),
                                            maxAge: TwoStepCookies.pendingLifetime, for: request))
            return response
        }
        return try await signIns.signIn(user, request: request, next: destination, address: address, how: "password")
    }

    @Sendable func logout(_ request: Request, context: AppRequestContext) async throws -> Response {
        if let session = context.visitor.session {
            try await sessions.delete(session)
        }
        var response = Pages.redirect(to: Paths.login())
        response.setCookie(cookies.expire(CookiePolicy.session, for: request))
        response.setCookie(cookies.flash("signed_out", for: request))
        return response
    }

    /// The language this browser picked with the switch (not merely its Accept-Language): an
    /// account without a choice of its own adopts it.
    private func chosenLanguage(_ request: Request) -> String? {
        RequestCookies(request)[CookiePolicy.language].flatMap { Lang(rawValue: $0)?.rawValue }
    }

}

extension FieldErrors {
    /// The messages of `problems` in the reader's language.
    init(_ problems: FormProblems, _ strings: Strings) {
        self.init()
        for (field, key) in problems.messages {
            let text = strings[key]
            switch field {
            case .email: email = text
            case .nickname: nickname = text
            case .phone: phone = text
            case .password: password = text
            case .passwordConfirm: passwordConfirm = text
            case .currentPassword: currentPassword = text
            case .name: name = text
            case .description: description = text
            case .content: content = text
            case .statusEmoji: statusEmoji = text
            case .statusText: statusText = text
            case .member: member = text
            case .code: code = text
            }
        }
    }
}
