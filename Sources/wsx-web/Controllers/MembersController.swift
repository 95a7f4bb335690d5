import Foundation
import Hummingbird
import Mail
import NIOCore
import Views

/// A workspace's members: the list with roles, invitations by email, removal (owner).
struct MembersController: Sendable {
    let workspaces: WorkspaceService
    let members: MembershipService
    let invitations: Invitations
    let joinLinks: JoinLinks
    /// The invitation mail (`--smtp-url`): composer and sender are nil without it.
    let mail: MailRoutes
    let statuses: StatusService
    let cookies: CookiePolicy
    let pages: Pages
    /// Where links point (`--base-url`, else http://localhost:PORT; never the request's Host).
    let site: SiteAddress
    /// Invitations per hour, and how often one address is mailed again.
    let limits: InvitationLimits

    /// Invitations as the owner sends them (limits, the invitation, its mail).
    var sender: InvitationSender { InvitationSender(invitations: invitations, limits: limits, mail: mail) }

    func addRoutes(to group: RouterGroup<SignedInContext>) {
        group.get(Paths.members.routerPath, use: list)
        group.post(Paths.members.routerPath, use: invite)
        group.post(Paths.removeMember.routerPath, use: remove)
        group.post(Paths.resendInvite.routerPath, use: resend)
        group.post(Paths.revokeInvite.routerPath, use: revoke)
        group.post(Paths.joinLink.routerPath, use: makeJoinLink)
        group.post(Paths.disableJoinLink.routerPath, use: disableJoinLink)
        group.get(Paths.people.routerPath, use: people)
    }

    /// One member as the quick switcher and the @ picker read them.
    private struct Person: Encodable {
        let id: Int64
        let nickname: String
        let profile: String
        let dm: String
        let avatar: String?
        /// How the person is drawn without a photo (`AvatarFace`).
        let initials: String
        let tone: Int
    }

    /// `GET /w/{wid}/people`: the members, for scripts (members only, like the members page).
    @Sendable func people(_ request: Request, context: SignedInContext) async throws -> Response {
        let access = try await context.workspaceAccess(workspaces)
        let people = try await members.members(of: access.workspaceId).map {
            Person(id: $0.id, nickname: $0.nickname, profile: Paths.user($0.id), dm: Paths.directMessages(access.workspaceId, $0.id),
                   avatar: $0.avatarFileId.map { Paths.thumbnail($0) }, initials: AvatarFace.initials($0.nickname),
                   tone: AvatarFace.tone($0.id))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
                        body: .init(byteBuffer: ByteBuffer(bytes: try encoder.encode(people))))
    }

    @Sendable func list(_ request: Request, context: SignedInContext) async throws -> Response {
        let access = try await context.workspaceAccess(workspaces)
        return try await show(access, request, context)
    }

    @Sendable func invite(_ request: Request, context: SignedInContext) async throws -> Response {
        let access = try await context.workspaceAccess(workspaces)
        try access.requireOwner()
        let email = context.form["email"] ?? ""
        let strings = context.strings
        func refuse(_ message: String, seconds: Int, address: String) async throws -> Response {
            var errors = FieldErrors()
            errors.email = message
            var response = try await show(access, request, context, email: address, errors: errors, status: .tooManyRequests)
            response.headers[.retryAfter] = "\(seconds)"
            return response
        }
        do {
            // The same answer whether or not the address has an account: a link to pass on, or
            // (with mail) a mail on its way.
            switch try await sender.invite(access, email: email, inviterNickname: context.user.nickname, lang: context.visitor.lang) {
            case .link(let token):
                return try await show(access, request, context, inviteLink: "\(site.base)/invite/\(token)")
            case .mailed(let address):
                return try await show(access, request, context, notice: strings.format("invite_mailed", address))
            case .mailedRecently(let address, let seconds):
                return try await refuse(strings.format("invite_mail_cooldown", address, max(1, (seconds + 59) / 60)),
                                        seconds: seconds, address: address)
            }
        } catch let throttled as InvitationSender.Throttled {
            return try await refuse(strings.format("invite_throttled", max(1, (throttled.seconds + 59) / 60)),
                                    seconds: throttled.seconds, address: email.cleanedLine)
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
                                   action: Paths.removeMember(access.workspaceId, uid),
                                   button: strings["confirm_remove_submit"], cancelURL: Paths.members(access.workspaceId))
            return try await pages.render(.confirm, title: page.heading, page: page, request: request, context: context,
                                          place: .workspace(access.workspaceId))
        }
        try await members.remove(access, userId: uid)
        return cookies.redirect(to: Paths.members(access.workspaceId), flash: "member_removed", for: request)
    }

    func show(_ access: WorkspaceAccess, _ request: Request, _ context: SignedInContext, email: String = "",
              errors: FieldErrors = FieldErrors(), inviteLink: String? = nil, notice: String? = nil,
              maxUses: String = "", expiry: String = "7d", status: HTTPResponse.Status = .ok) async throws -> Response {
        let strings = context.strings
        let everyone = try await members.members(of: access.workspaceId)
        let statuses = try await self.statuses.current(of: everyone.map(\.id))
        let rows = everyone.map { member in
            var row = MemberRow(id: member.id, nickname: member.nickname, email: member.email,
                                roleLabel: strings[member.role == .owner ? "role_owner" : "role_member"],
                                canRemove: access.isOwner && member.id != access.userId,
                                dmURL: Paths.directMessages(access.workspaceId, member.id), url: Paths.user(member.id),
                                removeURL: Paths.removeMember(access.workspaceId, member.id))
            row.status = statuses[member.id]?.label
            return row
        }
        var page = MembersPage(workspaceId: access.workspaceId, workspaceName: access.workspace.name, members: rows,
                               isOwner: access.isOwner, email: email, errors: errors, inviteLink: inviteLink, notice: notice)
        page.linkNeedsBaseURL = inviteLink != nil && !site.isConfigured
        if access.isOwner {
            page.mailFailures = try mail.outbox.failures(workspaceId: access.workspaceId).map { failure in
                MailFailureRow(recipient: failure.recipient,
                               error: strings.format("mail_failure_\(failure.reason.rawValue)", failure.recipient),
                               timestamp: Timestamps.iso(failure.failedAt), timeText: Timestamps.utcText(failure.failedAt))
            }
            page.hasMailFailures = !page.mailFailures.isEmpty
            try ownersPart(of: &page, access, strings, maxUses: maxUses, expiry: expiry)
        }
        return try await pages.render(.members, title: strings["members_title"], page: page, request: request,
                                      context: context, place: .workspace(access.workspaceId), status: status)
    }
}
