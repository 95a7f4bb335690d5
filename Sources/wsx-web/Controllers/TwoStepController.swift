import Hummingbird
import Views

/// `/profile/2fa`: a person's two-step sign-in. Begin (a secret made and kept waiting), scan the
/// QR code (drawn here as SVG, no script needed) or type the secret, confirm with the app's
/// first code: it is on, and ten recovery codes are shown once. Later: new recovery codes (with
/// a code), or off again (with the password and a code), unless the server requires it.
struct TwoStepController: Sendable {
    let accounts: AccountService
    let twoStep: TwoStepService
    let requirement: TwoStepRequirement
    /// The issuer authenticator apps show beside the account (the site's host).
    let issuer: String
    let cookies: CookiePolicy
    let pages: Pages

    func addRoutes(to group: RouterGroup<SignedInContext>) {
        group.get(Paths.twoStep.routerPath, use: show)
        group.post(Paths.twoStepStart.routerPath, use: start)
        group.post(Paths.twoStep.routerPath, use: enable)
        group.post(Paths.recoveryCodes.routerPath, use: renew)
        group.post(Paths.twoStepDisable.routerPath, use: disable)
    }

    @Sendable func show(_ request: Request, context: SignedInContext) async throws -> Response {
        try await render(try page(for: context), request, context)
    }

    /// Makes the secret to set up with (kept until it is confirmed or replaced).
    @Sendable func start(_ request: Request, context: SignedInContext) async throws -> Response {
        _ = try await twoStep.pendingSecret(userId: context.userId)
        return Pages.redirect(to: Paths.twoStep())
    }

    @Sendable func enable(_ request: Request, context: SignedInContext) async throws -> Response {
        do {
            let codes = try await twoStep.enable(userId: context.userId, code: context.form["code"] ?? "", address: context.visitor.address)
            var page = blank(isOn: true)
            page.recoveryCodes = codes
            return try await render(page, request, context)
        } catch let problems as FormProblems {
            var page = try page(for: context)
            page.errors = FieldErrors(problems, context.strings)
            return try await render(page, request, context, status: .unprocessableContent)
        }
    }

    /// New recovery codes, after a code from the app (or an unused recovery code).
    @Sendable func renew(_ request: Request, context: SignedInContext) async throws -> Response {
        guard context.user.twoStepEnabledAt != nil else { return Pages.redirect(to: Paths.twoStep()) }
        guard try await twoStep.check(userId: context.userId, typed: context.form["code"] ?? "") != .wrong else {
            var page = try page(for: context)
            page.errors.code = context.strings["two_step_code_wrong"]
            return try await render(page, request, context, status: .unprocessableContent)
        }
        var page = blank(isOn: true)
        page.recoveryCodes = try await twoStep.renewRecoveryCodes(userId: context.userId, address: context.visitor.address)
        return try await render(page, request, context)
    }

    /// Off, with the password and a code; not while the server requires it of this person.
    @Sendable func disable(_ request: Request, context: SignedInContext) async throws -> Response {
        let strings = context.strings
        guard !requirement.applies(to: context.user) else { throw AppError.forbidden("two_step_required_cannot_disable") }
        var errors = FieldErrors()
        if try await !accounts.checkPassword(userId: context.userId, context.form["current_password"] ?? "") {
            errors.currentPassword = strings["error_password_current_wrong"]
        } else if try await twoStep.check(userId: context.userId, typed: context.form["code"] ?? "") == .wrong {
            errors.code = strings["two_step_code_wrong"]
        }
        guard errors.isEmpty else {
            var page = try page(for: context)
            page.errors = errors
            return try await render(page, request, context, status: .unprocessableContent)
        }
        try await twoStep.disable(userId: context.userId, actor: context.userId, address: context.visitor.address)
        return cookies.redirect(to: Paths.twoStep(), flash: "two_step_turned_off", for: request)
    }

    /// The page as things stand: on, being set up, or off.
    private func page(for context: SignedInContext) throws -> TwoStepPage {
        let user = context.user
        var page = blank(isOn: user.twoStepEnabledAt != nil)
        page.isRequired = requirement.applies(to: user) && user.twoStepEnabledAt == nil
        if page.isOn {
            page.codesLeftText = context.strings.format("two_step_codes_left", try twoStep.recoveryCodesLeft(userId: context.userId))
        } else if let secret = try twoStep.waitingSecret(userId: context.userId) {
            let uri = TOTP.uri(secret: secret, account: user.email, issuer: issuer)
            page.qrSvgHtml = try QRCode(text: uri).svg(moduleSize: 4, label: context.strings["two_step_qr_label"])
            page.secretText = Base32.encode(secret).enumerated().map { $0.offset > 0 && $0.offset % 4 == 0 ? " \($0.element)" : "\($0.element)" }
                .joined()
        }
        return page
    }

    private func blank(isOn: Bool) -> TwoStepPage {
        TwoStepPage(isOn: isOn, startURL: Paths.twoStepStart(), enableURL: Paths.twoStep(), disableURL: Paths.twoStepDisable(),
                    recoveryURL: Paths.recoveryCodes())
    }

    private func render(_ page: TwoStepPage, _ request: Request, _ context: SignedInContext,
                        status: HTTPResponse.Status = .ok) async throws -> Response {
        try await pages.render(.twoStep, title: context.strings["two_step_title"], page: page, request: request, context: context,
                               status: status)
    }
}
