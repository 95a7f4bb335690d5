import Hummingbird
import Views

/// Sign-up, log-in and log-out.
struct AuthController: Sendable {
    let accounts: AccountService
    let sessions: SessionStore
    let throttle: LoginThrottle
    let cookies: CookiePolicy
    let pages: Pages

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/signup", use: signupForm)
        router.post("/signup", use: signup)
        router.get("/login", use: loginForm)
        router.post("/login", use: login)
        router.post("/logout", use: logout)
    }

    @Sendable func signupForm(_ request: Request, context: AppRequestContext) async throws -> Response {
        if context.visitor.user != nil { return Pages.redirect(to: "/workspaces") }
        return try await pages.render(.signup, title: context.visitor.strings["signup_title"], page: SignupPage(),
                            request: request, context: context)
    }

    @Sendable func signup(_ request: Request, context: AppRequestContext) async throws -> Response {
        var input = SignupInput(form: context.visitor.form ?? FormData(fields: []))
        input.lang = chosenLanguage(request)
        do {
            let user = try await accounts.signUp(input)
            return try await signIn(user, request: request, next: "/workspaces")
        } catch let problems as FormProblems {
            let page = SignupPage(email: input.email, nickname: input.nickname, phone: input.phone,
                                  errors: FieldErrors(problems, context.visitor.strings))
            return try await pages.render(.signup, title: context.visitor.strings["signup_title"], page: page, request: request,
                                context: context, status: .unprocessableContent)
        }
    }

    @Sendable func loginForm(_ request: Request, context: AppRequestContext) async throws -> Response {
        let next = LocalPath.validated(request.uri.queryParameters["next"].map(String.init))
        if context.visitor.user != nil { return Pages.redirect(to: next ?? "/workspaces") }
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

        if let wait = await throttle.retryAfter(account: account, address: address) {
            return try await refuse(strings.format("login_throttled", wait), status: .tooManyRequests,
                          headers: [.retryAfter: String(wait)])
        }
        guard let user = try await accounts.authenticate(email: email, password: form["password"] ?? "") else {
            await throttle.recordFailure(account: account, address: address)
            context.logger.notice("failed sign-in", metadata: ["address": "\(address)"])
            return try await refuse(strings["login_failed"], status: .unauthorized)
        }
        await throttle.recordSuccess(account: account)
        if user.lang == nil, let lang = chosenLanguage(request) {
            try await accounts.setLanguage(userId: user.id!, lang: lang)
        }
        return try await signIn(user, request: request, next: next ?? "/workspaces")
    }

    @Sendable func logout(_ request: Request, context: AppRequestContext) async throws -> Response {
        if let session = context.visitor.session {
            try await sessions.delete(session)
        }
        var response = Pages.redirect(to: "/login")
        response.setCookie(cookies.expire(CookiePolicy.session, for: request))
        response.setCookie(cookies.flash("signed_out", for: request))
        return response
    }

    /// The language this browser picked with the switch (not merely its Accept-Language): an
    /// account without a choice of its own adopts it.
    private func chosenLanguage(_ request: Request) -> String? {
        RequestCookies(request)[CookiePolicy.language].flatMap { Lang(rawValue: $0)?.rawValue }
    }

    /// Starts a session for `user` and sends them on.
    private func signIn(_ user: User, request: Request, next: String) async throws -> Response {
        let (token, _) = try await sessions.create(userId: user.id!, userAgent: request.headers[.userAgent])
        var response = Pages.redirect(to: next)
        response.setCookie(cookies.make(CookiePolicy.session, token, maxAge: Int(SessionStore.lifetime), for: request))
        return response
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
            }
        }
    }
}
