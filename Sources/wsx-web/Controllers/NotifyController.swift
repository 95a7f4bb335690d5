import Hummingbird
import Views

/// How rooms notify the viewer: `POST /w/{wid}/c/{cid}/notify`, `/w/{wid}/dm/{uid}/notify` and `/w/{wid}/g/{rid}/notify`
/// (`level` = all | mentions | mute | default), and the default for every other room,
/// `POST /profile/notify`. Scripts post with `Accept: application/json` and get 204; forms
/// come back to the page they were on with a notice.
struct NotifyController: Sendable {
    /// How the routes find their room.
    let scope: RoomScope
    let settings: NotifySettings
    let cookies: CookiePolicy

    func addRoutes(to group: RouterGroup<SignedInContext>) {
        group.onEveryRoom(.post, { $0.notify }, scope: scope) { try await set($0, $1, $2) }
        group.post(Paths.profileNotify.routerPath, use: standard)
    }

    /// A room the viewer is in; a channel they only read (or cannot see) is not found, nor is a
    /// DM before its first message (there is nothing to set yet).
    private func set(_ target: ScopedRoom, _ request: Request, _ context: SignedInContext) async throws -> Response {
        guard let room = try target.joined() else { throw AppError.notFound }
        let level = try NotifySettings.posted(context.form["level"], allowDefault: true)
        try await settings.setLevel(level, room: room, userId: context.userId)
        return answer(back: target.path, request)
    }

    @Sendable func standard(_ request: Request, context: SignedInContext) async throws -> Response {
        guard let level = try NotifySettings.posted(context.form["level"], allowDefault: false) else { throw AppError.badRequest }
        try await settings.setDefault(level, userId: context.userId)
        return answer(back: Paths.profile(), request)
    }

    private func answer(back: String, _ request: Request) -> Response {
        if RoomsController.wantsJSON(request) { return Response(status: .noContent) }
        var response = Pages.redirect(to: back)
        response.setCookie(cookies.flash("notify_saved", for: request))
        return response
    }
}
