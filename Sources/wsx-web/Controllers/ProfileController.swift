import Foundation
import Hummingbird
import Views

/// The signed-in user's profile and password, and people's public profile pages.
struct ProfileController: Sendable {
    let accounts: AccountService
    let workspaces: WorkspaceService
    let files: FileService
    let statuses: StatusService
    /// Status changes per account (`--status-changes-per-minute`).
    let rateLimiter: AccountRateLimiter
    /// Whether this server sends mail (`--smtp-url`): the digest setting shows only then.
    let mailEnabled: Bool
    /// The apps' sign-ins, listed on the page while the API is on (`apiOn`) or any are left.
    let appSessions: AppSessions
    let appPasswords: AppPasswords
    let apiOn: Bool
    let cookies: CookiePolicy
    let pages: Pages

    func addRoutes(to group: RouterGroup<SignedInContext>) {
        group.get(Paths.profile.routerPath, use: profileForm)
        group.post(Paths.profile.routerPath, use: updateProfile)
        group.post(Paths.password.routerPath, use: changePassword)
        group.post(Paths.profileStatus.routerPath, use: setStatus)
        group.post(Paths.profileMail.routerPath, use: setMail)
        group.get(Paths.user.routerPath, use: userPage)
        group.post(Paths.endAppSignIn.routerPath, use: endAppSignIn)
        group.post(Paths.appPasswords.routerPath, use: createAppPassword)
        group.post(Paths.revokeAppPassword.routerPath, use: revokeAppPassword)
    }

    /// Makes an app password (two-step accounts, with the API on) and shows it this once.
    @Sendable func createAppPassword(_ request: Request, context: SignedInContext) async throws -> Response {
        guard apiOn, context.user.twoStepEnabledAt != nil else { throw AppError.notFound }
        let user = context.user
        var page = ProfilePage(email: user.email, nickname: user.nickname, phone: user.phone ?? "")
        page.photoURL = user.avatarFileId.map { Paths.thumbnail($0) }
        do {
            page.newAppPassword = try await appPasswords.create(userId: context.userId, name: context.form["name"] ?? "").1
            return try await show(page, request, context)
        } catch let problems as FormProblems {
            page.errors = FieldErrors(problems, context.strings)
            return try await show(page, request, context, status: .unprocessableContent)
        }
    }

    /// Revokes an app password; the app signed in with it signs out with it.
    @Sendable func revokeAppPassword(_ request: Request, context: SignedInContext) async throws -> Response {
        guard try await appPasswords.revoke(id: try context.id("id"), userId: context.userId) else { throw AppError.notFound }
        return redirect(flash: "app_password_revoked", request)
    }

    /// Signs one of the person's apps out; someone else's sign-in is a 404.
    @Sendable func endAppSignIn(_ request: Request, context: SignedInContext) async throws -> Response {
        guard try await appSessions.end(id: try context.id("id"), userId: context.userId) else { throw AppError.notFound }
        return redirect(flash: "apps_ended", request)
    }

    @Sendable func profileForm(_ request: Request, context: SignedInContext) async throws -> Response {
        let user = context.user
        var page = ProfilePage(email: user.email, nickname: user.nickname, phone: user.phone ?? "")
        page.photoURL = user.avatarFileId.map { Paths.thumbnail($0) }
        return try await show(page, request, context)
    }

    @Sendable func updateProfile(_ request: Request, context: SignedInContext) async throws -> Response {
        let (form, picture) = try await files.readPictureForm(request, visitor: context.visitor)
        let nickname = form["nickname"] ?? "", phone = form["phone"] ?? ""
        do {
            _ = try await accounts.updateProfile(userId: context.userId, nickname: nickname, phone: phone, picture: picture)
            if picture != nil { try await files.collectGarbage() }
            return redirect(flash: "profile_saved", request)
        } catch let problems as FormProblems {
            let page = ProfilePage(email: context.user.email, nickname: nickname.cleanedLine, phone: phone.cleanedLine,
                                   errors: FieldErrors(problems, context.visitor.strings))
            return try await show(page, request, context, status: .unprocessableContent)
        }
    }

    @Sendable func changePassword(_ request: Request, context: SignedInContext) async throws -> Response {
        let form = context.visitor.form ?? FormData(fields: [])
        do {
            let token = try await accounts.changePassword(userId: context.userId, current: form["current_password"] ?? "",
                                                          new: form["password"] ?? "", confirmation: form["password_confirm"] ?? "",
                                                          userAgent: request.headers[.userAgent])
            var response = redirect(flash: "password_changed", request)
            response.setCookie(cookies.make(CookiePolicy.session, token, maxAge: Int(SessionStore.lifetime), for: request))
            return response
        } catch let problems as FormProblems {
            let user = context.user
            let page = ProfilePage(email: user.email, nickname: user.nickname, phone: user.phone ?? "",
                                   errors: FieldErrors(problems, context.visitor.strings))
            return try await show(page, request, context, status: .unprocessableContent)
        }
    }

    /// Turns the digest of missed mentions and direct messages on (`digest=on`) or off.
    @Sendable func setMail(_ request: Request, context: SignedInContext) async throws -> Response {
        try await accounts.setMailDigest(context.form["digest"] == "on", userId: context.userId)
        return redirect(flash: "profile_saved", request)
    }

    /// Sets or clears (`clear`, or nothing in either field) the custom status.
    @Sendable func setStatus(_ request: Request, context: SignedInContext) async throws -> Response {
        let form = context.visitor.form ?? FormData(fields: [])
        let clearing = form["clear"] != nil
        let (emoji, text) = clearing ? ("", "") : (form["emoji"] ?? "", form["text"] ?? "")
        try rateLimiter.charge(.status, userId: context.userId)
        do {
            try await statuses.set(userId: context.userId, emoji: emoji, text: text, duration: clearing ? "" : form["duration"] ?? "")
            let cleared = emoji.trimmingCharacters(in: .whitespaces).isEmpty && text.cleanedLine.isEmpty
            return redirect(flash: cleared ? "status_cleared" : "status_saved", request)
        } catch let problems as FormProblems {
            let user = context.user
            var page = ProfilePage(email: user.email, nickname: user.nickname, phone: user.phone ?? "",
                                   errors: FieldErrors(problems, context.visitor.strings))
            page.photoURL = user.avatarFileId.map { Paths.thumbnail($0) }
            (page.statusEmoji, page.statusText) = (emoji, text)
            return try await show(page, request, context, status: .unprocessableContent, duration: form["duration"] ?? "")
        }
    }

    /// A person's page, for themselves and for anyone who shares a workspace with them: who
    /// they are, how to reach them, and a way to message them in each shared workspace.
    /// Everyone else gets the same 404 as for an account that does not exist.
    @Sendable func userPage(_ request: Request, context: SignedInContext) async throws -> Response {
        let uid = try context.id("uid")
        let shared = try await workspaces.sharedWorkspaces(of: context.userId, with: uid)
        guard uid == context.userId || !shared.isEmpty, let user = try await accounts.user(id: uid) else { throw AppError.notFound }
        let strings = context.strings
        let rows = shared.map { workspace in
            SharedWorkspace(name: workspace.name, url: Paths.workspace(workspace.id!), messageURL: Paths.directMessages(workspace.id!, uid),
                            messageLabel: strings.format("user_message_in", user.nickname, workspace.name))
        }
        var page = UserPage(id: uid, nickname: user.nickname, isViewer: uid == context.userId, email: user.email,
                            phone: user.phone.flatMap { $0.isEmpty ? nil : $0 }, photoURL: user.avatarFileId.map { Paths.thumbnail($0) },
                            workspaces: rows)
        page.status = try await statuses.current(of: [uid])[uid]?.label
        return try await pages.render(.user, title: user.nickname, page: page, request: request, context: context)
    }

    private func show(_ page: ProfilePage, _ request: Request, _ context: SignedInContext,
                      status: HTTPResponse.Status = .ok, duration: String? = nil) async throws -> Response {
        var page = page
        let strings = context.visitor.strings
        let current = try await statuses.current(of: [context.userId])[context.userId]
        page.statusURL = Paths.profileStatus()
        page.statusNow = current?.label ?? ""
        page.hasStatus = current != nil
        if page.errors.statusEmoji == nil, page.errors.statusText == nil, let current {
            (page.statusEmoji, page.statusText) = (current.emoji, current.text)
        }
        let chosen = duration ?? ""
        page.statusDurations = StatusService.Duration.allCases.map { length in
            NotifyChoice(value: length.rawValue, label: strings[length == .never ? "status_never" : "status_" + length.rawValue],
                         isSelected: length.rawValue == chosen)
        }
        page.notifyURL = Paths.profileNotify()
        page.mailEnabled = mailEnabled
        page.mailDigest = try accounts.mailDigest(userId: context.userId)
        page.mailURL = Paths.profileMail()
        page.twoStepOn = context.user.twoStepEnabledAt != nil
        page.emailUnconfirmed = mailEnabled && context.user.emailConfirmedAt == nil
        page.confirmURL = Paths.profileConfirm()
        let apps = try await appSessions.list(userId: context.userId)
        page.appsShown = apiOn || !apps.isEmpty
        if apiOn, context.user.twoStepEnabledAt != nil {
            page.appPasswordsShown = true
            page.appPasswordURL = Paths.appPasswords()
            page.appPasswords = try await appPasswords.list(userId: context.userId).map { password in
                AppSignInRow(client: password.name, signedInAt: Timestamps.iso(password.createdAt),
                             signedInText: Timestamps.utcText(password.createdAt), usedAt: password.lastUsedAt.map(Timestamps.iso),
                             usedText: password.lastUsedAt.map(Timestamps.utcText), endURL: Paths.revokeAppPassword(password.id))
            }
        }
        page.appSignIns = apps.map { app in
            AppSignInRow(client: app.client.flatMap { $0.isEmpty ? nil : $0 } ?? strings["apps_unknown_client"],
                         signedInAt: Timestamps.iso(app.createdAt), signedInText: Timestamps.utcText(app.createdAt),
                         usedAt: Timestamps.iso(app.usedAt), usedText: Timestamps.utcText(app.usedAt), endURL: Paths.endAppSignIn(app.id!))
        }
        page.notifyChoices = NotifyChoice.forDefault(NotifyLevel(rawValue: context.user.notifyDefault) ?? .standard,
                                                     strings: context.visitor.strings)
        return try await pages.render(.profile, title: context.visitor.strings["profile_title"], page: page, request: request,
                     context: context, status: status)
    }

    private func redirect(flash: String, _ request: Request) -> Response {
        var response = Pages.redirect(to: Paths.profile())
        response.setCookie(cookies.flash(flash, for: request))
        return response
    }
}
