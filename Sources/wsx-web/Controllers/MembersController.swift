import Hummingbird
import Views

/// A workspace's members: the list with roles, invitations by email, removal (owner).
struct MembersController: Sendable {
    let workspaces: WorkspaceService
    let members: MembershipService
    let cookies: CookiePolicy
    let pages: Pages
    /// Where people reach the site, for invitation links (`--base-url`; nil: the request's host).
    let baseURL: String?

    func addRoutes(to group: RouterGroup<SignedInContext>) {
        group.get("/w/{wid}/members", use: list)
        group.post("/w/{wid}/members", use: invite)
        group.post("/w/{wid}/members/{uid}/remove", use: remove)
    }

    @Sendable func list(_ request: Request, context: SignedInContext) async throws -> Response {
        let access = try await context.workspaceAccess(workspaces)
        return try await show(access, request, context)
    }

    @Sendable func invite(_ request: Request, context: SignedInContext) async throws -> Response {
        let access = try await context.workspaceAccess(workspaces)
        let email = context.form["email"] ?? ""
        do {
            switch try await members.invite(access, email: email) {
            case .added(let nickname):
                return try await show(access, request, context, notice: context.strings.format("invite_added", nickname))
            case .link(let token):
                // Shown once, here: only its hash is stored.
                return try await show(access, request, context, inviteLink: "\(cookies.siteURL(for: request, configured: baseURL))/invite/\(token)")
            }
        } catch let problems as FormProblems {
            return try await show(access, request, context, email: email.cleanedLine,
                                  errors: FieldErrors(problems, context.strings), status: .unprocessableContent)
        }
    }

    @Sendable func remove(_ request: Request, context: SignedInContext) async throws -> Response {
        let access = try await context.workspaceAccess(workspaces)
        try access.requireOwner()
        let uid = try context.id("uid")
        guard let member = try await members.members(of: access.workspaceId).first(where: { $0.id == uid }) else {
            throw AppError.notFound
        }
        if uid == access.userId { throw AppError.conflict("error_owner_cannot_leave") }
        guard context.isConfirmed else {
            let strings = context.strings
            let page = ConfirmPage(heading: strings.format("confirm_remove_member", member.nickname),
                                   consequences: [strings["confirm_remove_consequence"]],
                                   action: "/w/\(access.workspaceId)/members/\(uid)/remove",
                                   button: strings["confirm_remove_submit"], cancelURL: "/w/\(access.workspaceId)/members")
            return try await pages.render(.confirm, title: page.heading, page: page, request: request, context: context,
                                          place: .workspace(access.workspaceId))
        }
        try await members.remove(access, userId: uid)
        return cookies.redirect(to: "/w/\(access.workspaceId)/members", flash: "member_removed", for: request)
    }

    private func show(_ access: WorkspaceAccess, _ request: Request, _ context: SignedInContext, email: String = "",
                      errors: FieldErrors = FieldErrors(), inviteLink: String? = nil, notice: String? = nil,
                      status: HTTPResponse.Status = .ok) async throws -> Response {
        let strings = context.strings
        let rows = try await members.members(of: access.workspaceId).map { member in
            MemberRow(id: member.id, nickname: member.nickname, email: member.email,
                      roleLabel: strings[member.role == .owner ? "role_owner" : "role_member"],
                      canRemove: access.isOwner && member.id != access.userId,
                      dmURL: "/w/\(access.workspaceId)/dm/\(member.id)")
        }
        let page = MembersPage(workspaceId: access.workspaceId, workspaceName: access.workspace.name, members: rows,
                               isOwner: access.isOwner, email: email, errors: errors, inviteLink: inviteLink, notice: notice)
        return try await pages.render(.members, title: strings["members_title"], page: page, request: request,
                                      context: context, place: .workspace(access.workspaceId), status: status)
    }
}
