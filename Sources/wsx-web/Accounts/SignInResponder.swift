import Foundation
import Hummingbird

/// The end of every way in (the login form, its second step, an invitation): a session for the
/// person, the cookies that carry it, the sign-in in the security log, and the redirect on.
struct SignInResponder: Sendable {
    let database: AppDatabase
    let sessions: SessionStore
    let devices: DeviceCookie
    let cookies: CookiePolicy
    let lastRooms: LastRooms
    /// A join link in `next` is joined on the way in: the person pressed "sign up and join" or
    /// "log in and join" (the form's CSRF token stands for it), so they land in the workspace.
    let joinLinks: JoinLinks
    let clock: WallClock

    /// Starts a session for `user` and sends them to `next` (`/`: straight to where `/` would
    /// send them, the room they viewed last, so a notice shown there is not lost on the way; a
    /// join link: joined, into its workspace); `how` is what the log says of it (`password`,
    /// `two-step`, `recovery code`, `invitation`).
    func signIn(_ user: User, request: Request, next: String, address: String, how: String,
                flash: String? = nil) async throws -> Response {
        let (token, _) = try await sessions.create(userId: user.id!, userAgent: request.headers[.userAgent])
        try await SecurityLog.record(database, .signIn, actor: user.id, target: user.id, address: address, email: user.email,
                                     detail: how, at: clock.now())
        var (next, flash) = (next == Paths.root() ? try lastRooms.start(userId: user.id!) : next, flash)
        if Paths.join.matches(next), let token = next.split(separator: "/").last.map(String.init),
           SessionMiddleware.isWellFormedToken(token),
           let workspace = try? await joinLinks.join(token: token, userId: user.id!) {
            // A link used up or gone meanwhile: its own page says so, as before.
            (next, flash) = (Paths.workspace(workspace.id!), flash ?? "invite_joined")
        }
        var response = flash.map { cookies.redirect(to: next, flash: $0, for: request) } ?? Pages.redirect(to: next)
        response.setCookie(cookies.make(CookiePolicy.session, token, maxAge: Int(SessionStore.lifetime), for: request))
        response.setCookie(cookies.make(DeviceCookie.name, devices.value(forAccount: user.emailKey),
                                        maxAge: DeviceCookie.lifetime, for: request))
        return response
    }
}
