import Hummingbird
import Views

/// How rooms notify the viewer: `POST /w/{wid}/c/{cid}/notify`, `/w/{wid}/dm/{uid}/notify` and `/w/{wid}/g/{rid}/notify`
/// (`level` = all | mentions | mute | default), and the default for every other room,
/// `POST /profile/notify`. Scripts post with `Accept: application/json` and get 204; forms
/// come back to the page they were on with a notice.
struct NotifyController: Sendable {
    let workspaces: WorkspaceService
    let channels: ChannelService
    let directRooms: DirectRooms
    let groups: GroupRooms
    let settings: NotifySettings
    let cookies: CookiePolicy

    func addRoutes(to group: RouterGroup<SignedInContext>) {
        group.post(Paths.channelNotify.routerPath, use: channel)
        group.post(Paths.directMessagesNotify.routerPath, use: directMessages)
        group.post(Paths.groupNotify.routerPath, use: groupConversation)
        group.post(Paths.profileNotify.routerPath, use: standard)
    }

    /// A channel the viewer is in; one they only read (or cannot see) is not found.
    @Sendable func channel(_ request: Request, context: SignedInContext) async throws -> Response {
        let view = try await channels.channel(workspaceId: try context.id("wid"), userId: context.userId, id: try context.id("cid"))
        guard view.isMember else { throw AppError.notFound }
        return try await set(room: view.room, back: Paths.channel(view.access.workspaceId, view.room.id!), request, context)
    }

    /// A DM that exists (it is made by its first message; before that there is nothing to set).
    @Sendable func directMessages(_ request: Request, context: SignedInContext) async throws -> Response {
        let access = try await context.workspaceAccess(workspaces)
        let partner = try await directRooms.partner(access, userId: try context.id("uid"))
        guard let room = try await directRooms.existing(access, with: partner.id!) else { throw AppError.notFound }
        return try await set(room: room, back: Paths.directMessages(access.workspaceId, partner.id!), request, context)
    }

    /// A group conversation the viewer is in.
    @Sendable func groupConversation(_ request: Request, context: SignedInContext) async throws -> Response {
        let view = try await groups.view(try await context.workspaceAccess(workspaces), id: try context.id("rid"))
        return try await set(room: view.room, back: Paths.group(view.access.workspaceId, view.room.id!), request, context)
    }

    @Sendable func standard(_ request: Request, context: SignedInContext) async throws -> Response {
        guard let level = try NotifySettings.posted(context.form["level"], allowDefault: false) else { throw AppError.badRequest }
        try await settings.setDefault(level, userId: context.userId)
        return answer(back: Paths.profile(), request)
    }

    private func set(room: Room, back: String, _ request: Request, _ context: SignedInContext) async throws -> Response {
        let level = try NotifySettings.posted(context.form["level"], allowDefault: true)
        try await settings.setLevel(level, room: room, userId: context.userId)
        return answer(back: back, request)
    }

    private func answer(back: String, _ request: Request) -> Response {
        if RoomsController.wantsJSON(request) { return Response(status: .noContent) }
        var response = Pages.redirect(to: back)
        response.setCookie(cookies.flash("notify_saved", for: request))
        return response
    }
}
