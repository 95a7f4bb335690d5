import Foundation
import Hummingbird
import Views

/// The owner's side of getting people in: pending invitations (copy, resend, revoke) and the
/// workspace's open join link (make with an expiry and a use limit, reset, turn off).
extension MembersController {
    /// How long a join link may last, as the form offers it (`never`: no expiry).
    static let joinLinkLifetimes: [(value: String, seconds: TimeInterval?)] = [
        ("1d", 86_400), ("7d", 7 * 86_400), ("30d", 30 * 86_400), ("never", nil),
    ]

    /// `POST /w/{wid}/invitations/{iid}/resend`: seven more days, and the mail again when there is mail.
    @Sendable func resend(_ request: Request, context: SignedInContext) async throws -> Response {
        let access = try await context.workspaceAccess(workspaces)
        try access.requireOwner()
        let inviteId = try context.id("iid")
        if mail.composer != nil, let pending = try invitations.outstanding(access).first(where: { $0.id == inviteId }),
           let wait = await limits.mayMail(workspaceId: access.workspaceId, email: pending.email) {
            var response = try await show(access, request, context,
                                          notice: context.strings.format("invite_mail_cooldown", pending.email, max(1, (wait + 59) / 60)),
                                          status: .tooManyRequests)
            response.headers[.retryAfter] = "\(wait)"
            return response
        }
        let invite = try await invitations.renew(access, inviteId: inviteId)
        if let composer = mail.composer {
            try await mail.outbox.enqueue(kind: .invitation, recipient: invite.email, workspaceId: access.workspaceId,
                                          message: composer.invitation(to: invite.email, inviter: invite.inviterNickname,
                                                                       workspace: access.workspace.name, token: invite.token,
                                                                       lang: try mail.outbox.savedLanguage(email: invite.email)
                                                                           .flatMap(Lang.init(rawValue:)) ?? context.visitor.lang))
            mail.sender?.wake()
            return try await show(access, request, context, notice: context.strings.format("invite_renewed_mailed", invite.email))
        }
        return try await show(access, request, context, notice: context.strings.format("invite_renewed", invite.email))
    }

    /// `POST /w/{wid}/invitations/{iid}/revoke`: the link stops working.
    @Sendable func revoke(_ request: Request, context: SignedInContext) async throws -> Response {
        let access = try await context.workspaceAccess(workspaces)
        let inviteId = try context.id("iid")
        let email = try invitations.outstanding(access).first { $0.id == inviteId }?.email
        try await invitations.revoke(access, inviteId: inviteId)
        return try await show(access, request, context, notice: context.strings.format("invite_revoked", email ?? ""))
    }

    /// `POST /w/{wid}/join-link` (`expires`: 1d, 7d, 30d or never; `max_uses`: empty or 1–10,000):
    /// makes the link, or a new one in place of the old.
    @Sendable func makeJoinLink(_ request: Request, context: SignedInContext) async throws -> Response {
        let access = try await context.workspaceAccess(workspaces)
        try access.requireOwner()
        let expiry = context.form["expires"] ?? "7d"
        guard let lifetime = Self.joinLinkLifetimes.first(where: { $0.value == expiry }) else { throw AppError.badRequest }
        let maxText = (context.form["max_uses"] ?? "").trimmingCharacters(in: .whitespaces)
        var maxUses: Int?
        if !maxText.isEmpty {
            guard let value = Int(maxText), (1...10_000).contains(value) else {
                var errors = FieldErrors()
                errors.maxUses = context.strings["join_link_max_bad"]
                return try await show(access, request, context, errors: errors, maxUses: maxText, expiry: expiry,
                                      status: .unprocessableContent)
            }
            maxUses = value
        }
        _ = try await joinLinks.reset(access, lifetime: lifetime.seconds, maxUses: maxUses)
        return try await show(access, request, context, notice: context.strings["join_link_made"], maxUses: maxText, expiry: expiry)
    }

    /// `POST /w/{wid}/join-link/disable`.
    @Sendable func disableJoinLink(_ request: Request, context: SignedInContext) async throws -> Response {
        let access = try await context.workspaceAccess(workspaces)
        try await joinLinks.disable(access)
        return try await show(access, request, context, notice: context.strings["join_link_disabled"])
    }

    /// Fills in what only the owner sees: pending invitations and the join link with its form.
    func ownersPart(of page: inout MembersPage, _ access: WorkspaceAccess, _ strings: Strings, maxUses: String,
                    expiry: String) throws {
        page.invitations = try invitations.outstanding(access).map { invite in
            PendingInviteRow(id: invite.id, email: invite.email, link: site.base + Paths.invite(invite.token),
                             expiresAt: Timestamps.iso(invite.expiresAt), expiresText: Timestamps.utcText(invite.expiresAt),
                             resendURL: Paths.resendInvite(access.workspaceId, invite.id),
                             revokeURL: Paths.revokeInvite(access.workspaceId, invite.id))
        }
        page.hasInvitations = !page.invitations.isEmpty
        page.joinLink = try joinLinks.current(access).map { link in
            JoinLinkView(url: site.base + Paths.join(link.token), expiresAt: link.expiresAt.map(Timestamps.iso),
                         expiresText: link.expiresAt.map(Timestamps.utcText),
                         usesText: link.maxUses.map { strings.format("join_link_uses_max", link.uses, $0) }
                             ?? strings.format("join_link_uses", link.uses))
        }
        page.joinLinkAction = Paths.joinLink(access.workspaceId)
        page.disableJoinLinkAction = Paths.disableJoinLink(access.workspaceId)
        page.expiryChoices = Self.joinLinkLifetimes.map {
            NotifyChoice(value: $0.value, label: strings["join_expiry_\($0.value)"], isSelected: $0.value == expiry)
        }
        page.maxUses = maxUses
    }
}
