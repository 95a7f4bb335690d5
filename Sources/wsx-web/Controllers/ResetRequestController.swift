import Hummingbird
import Logging
import Views

/// `GET|POST /reset`: "Forgot password?". With mail, the account's address gets a one-time
/// link (`/reset/{token}`, an hour); the page says the same words whether or not an account
/// uses the address, and never shows a link. Without mail it says the operator can make one.
/// One address may ask `--reset-max-per-ip` times an hour (a 429 past it); one account gets
/// at most three mails an hour, however many addresses ask. The lookup and the mail happen
/// after the answer, in a task of their own: answered in line, a known address took 2.7 ms and
/// an unknown one 1.5, which told anyone who had an account.
struct ResetRequestController: Sendable {
    let accounts: AccountService
    let mail: MailRoutes
    let limiter: AttemptLimiter
    let perAddress: Int
    let pages: Pages

    static let perAccount = AttemptLimiter.Rule(limit: 3, window: 3600)

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get(Paths.resetRequest.routerPath, use: form)
        router.post(Paths.resetRequest.routerPath, use: request)
    }

    @Sendable func form(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await show(ResetRequestPage(actionURL: Paths.resetRequest(), mailEnabled: mail.composer != nil), request, context)
    }

    @Sendable func request(_ request: Request, context: AppRequestContext) async throws -> Response {
        let strings = context.visitor.strings
        guard let composer = mail.composer else {
            return try await show(ResetRequestPage(actionURL: Paths.resetRequest(), notice: strings["reset_request_no_mail"],
                                                   mailEnabled: false), request, context)
        }
        let email = (context.visitor.form?["email"] ?? "").cleanedLine
        var problems = FormProblems()
        AccountRules.checkEmail(email, into: &problems)
        if !problems.isEmpty {
            let message = FieldErrors(problems, strings).email
            return try await show(ResetRequestPage(email: email, actionURL: Paths.resetRequest(), mailEnabled: true, error: message),
                                  request, context, status: .unprocessableContent)
        }
        if perAddress > 0 {
            switch await limiter.reserve([.init(key: "reset-address:\(AddressBucket.key(context.visitor.address))",
                                                 rule: .init(limit: perAddress, window: 3600))]) {
            case .wait(let seconds):
                let minutes = max(1, (seconds + 59) / 60)
                var response = try await show(ResetRequestPage(email: email, actionURL: Paths.resetRequest(), mailEnabled: true,
                                                               error: strings.format("reset_request_throttled", minutes)),
                                              request, context, status: .tooManyRequests)
                response.headers[.retryAfter] = "\(seconds)"
                return response
            case .proceed(let ticket):
                await limiter.settle(ticket, counted: true)
            }
        }
        let (lang, logger) = (context.visitor.lang, context.logger)
        Task {
            do {
                try await mailLink(to: email, composer: composer, fallback: lang)
            } catch {
                logger.error("cannot queue a password reset mail", metadata: ["error": "\(error)"])
            }
        }
        return try await show(ResetRequestPage(actionURL: Paths.resetRequest(), notice: strings["reset_request_sent"], mailEnabled: true),
                              request, context)
    }

    /// Queues the mail when an active account uses `email` and has not had three this hour. A
    /// deactivated one gets nothing (its person asks an administrator).
    private func mailLink(to email: String, composer: MailComposer, fallback: Lang) async throws {
        guard let user = try await accounts.user(email: email), user.isActive else { return }
        guard case .proceed(let ticket) = await limiter.reserve([.init(key: "reset-account:\(user.id!)", rule: Self.perAccount)]) else {
            return
        }
        await limiter.settle(ticket, counted: true)
        let token = try await accounts.createPasswordReset(email: user.email)
        try await mail.outbox.enqueue(kind: .passwordReset, recipient: user.email, workspaceId: nil,
                                 message: composer.passwordReset(to: user.email, token: token,
                                                                 lang: user.lang.flatMap(Lang.init(rawValue:)) ?? fallback))
        mail.sender?.wake()
    }

    private func show(_ page: ResetRequestPage, _ request: Request, _ context: AppRequestContext,
                      status: HTTPResponse.Status = .ok) async throws -> Response {
        try await pages.render(.resetRequest, title: context.visitor.strings["reset_request_title"], page: page, request: request,
                               context: context, status: status)
    }
}
