import Hummingbird
import Views

/// Starting conversations and managing group ones: `GET /w/{wid}/dm` (pick people),
/// `POST /w/{wid}/dm` (`member` repeated: one person opens their DM, two to eight the group
/// of exactly those people), and a group's `POST /w/{wid}/g/{rid}/members` (`member` = user id)
/// and `/leave` (after a confirmation page). A group's page and messages are `RoomsController`'s.
struct ConversationsController: Sendable {
    let workspaces: WorkspaceService
    let groups: GroupRooms
    let members: MembershipService
    let cookies: CookiePolicy
    let pages: Pages

    func addRoutes(to group: RouterGroup<SignedInContext>) {
        group.get(Paths.startConversation.routerPath, use: choose)
        group.post(Paths.startConversation.routerPath, use: start)
        group.post(Paths.groupMembers.routerPath, use: addMember)
        group.post(Paths.leaveGroup.routerPath, use: leave)
    }

    /// The people to choose from; `?member=` ticks some (a profile's "message" link may).
    @Sendable func choose(_ request: Request, context: SignedInContext) async throws -> Response {
        let access = try await context.workspaceAccess(workspaces)
        let chosen = Set(request.uri.queryParameters.getAll("member").compactMap { Int64($0) })
        return try await showChoice(access, chosen: chosen, error: nil, request, context)
    }

    @Sendable func start(_ request: Request, context: SignedInContext) async throws -> Response {
        let access = try await context.workspaceAccess(workspaces)
        let requested = try context.form.values("member").map { text -> Int64 in
            guard let id = Int64(text) else { throw AppError.badRequest }
            return id
        }
        do {
            switch try await groups.open(access, with: requested) {
            case .direct(let userId): return Pages.redirect(to: Paths.directMessages(access.workspaceId, userId))
            case .group(let roomId): return Pages.redirect(to: Paths.group(access.workspaceId, roomId))
            }
        } catch let problems as FormProblems {
            return try await showChoice(access, chosen: Set(requested), error: FieldErrors(problems, context.strings).member,
                                        request, context, status: .unprocessableContent)
        }
    }

    private func showChoice(_ access: WorkspaceAccess, chosen: Set<Int64>, error: String?, _ request: Request,
                            _ context: SignedInContext, status: HTTPResponse.Status = .ok) async throws -> Response {
        let strings = context.strings
        let people = try await members.members(of: access.workspaceId).filter { $0.id != context.userId }.map { member in
            ConversationCandidate(id: member.id, nickname: member.nickname, avatarURL: member.avatarFileId.map { Paths.thumbnail($0) },
                                  isChosen: chosen.contains(member.id))
        }
        let page = NewConversationPage(action: Paths.startConversation(access.workspaceId), people: people,
                                       hint: strings.format("conversation_hint", GroupRooms.sizes.upperBound), error: error)
        return try await pages.render(.newConversation, title: strings["conversation_new_title"], page: page, request: request,
                                      context: context, place: .workspace(access.workspaceId), status: status)
    }

    @Sendable func addMember(_ request: Request, context: SignedInContext) async throws -> Response {
        let view = try await group(context)
        guard let userId = context.form["member"].flatMap({ Int64($0) }) else { throw AppError.badRequest }
        try await groups.add(view, userId: userId)
        return cookies.redirect(to: Paths.group(view.access.workspaceId, view.room.id!), flash: "group_member_added", for: request)
    }

    @Sendable func leave(_ request: Request, context: SignedInContext) async throws -> Response {
        let view = try await group(context)
        let (wid, rid) = (view.access.workspaceId, view.room.id!)
        guard context.isConfirmed else {
            let strings = context.strings
            let page = ConfirmPage(heading: strings.format("confirm_leave_group", view.title),
                                   consequences: [strings["confirm_leave_group_consequence"]],
                                   action: Paths.leaveGroup(wid, rid), button: strings["confirm_leave_group_submit"],
                                   cancelURL: Paths.group(wid, rid))
            return try await pages.render(.confirm, title: page.heading, page: page, request: request, context: context,
                                          place: .room(workspace: wid, room: rid))
        }
        try await groups.leave(view)
        return cookies.redirect(to: Paths.workspace(wid), flash: "group_left", for: request)
    }

    /// The group of the route, for someone in it; anyone else gets a 404.
    private func group(_ context: SignedInContext) async throws -> GroupRooms.View {
        try await groups.view(try await context.workspaceAccess(workspaces), id: try context.id("rid"))
    }
}
