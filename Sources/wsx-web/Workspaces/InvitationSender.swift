import Foundation
import Views

/// Inviting an address into a workspace, from the members page or an app: the owner's and the
/// workspace's hourly allowance (`InvitationLimits`), the invitation itself (`Invitations`),
/// and with mail its message, each address mailed again at most every ten minutes.
struct InvitationSender: Sendable {
    let invitations: Invitations
    let limits: InvitationLimits
    /// The invitation mail (`--smtp-url`): composer and sender are nil without it.
    let mail: MailRoutes

    /// What became of an invitation.
    enum Outcome: Sendable, Equatable {
        /// No mail here: the link to pass on (its token).
        case link(token: String)
        /// Its mail is on its way to the address.
        case mailed(address: String)
        /// The address was mailed minutes ago: nothing sent, try again in `seconds`.
        case mailedRecently(address: String, seconds: Int)
    }

    /// The owner and the workspace made as many invitations as an hour allows: try again in
    /// `seconds`. Nothing was made.
    struct Throttled: Error, Equatable {
        let seconds: Int
    }

    /// Invites `email` into `access`'s workspace (owner; `FormProblems` for a bad address or a
    /// member). Inviting an address with a pending invitation again is only its mail again: the
    /// cooldown holds that, not the count of new invitations. `lang` is the mail's language when
    /// the address has none of its own.
    func invite(_ access: WorkspaceAccess, email: String, inviterNickname: String, lang: Lang) async throws -> Outcome {
        try access.requireOwner()
        var ticket: AttemptLimiter.Ticket?
        switch await limits.beginInvitation(inviter: access.userId, workspaceId: access.workspaceId) {
        case .wait where try invitations.isPending(access, email: email):
            ticket = nil
        case .wait(let seconds):
            throw Throttled(seconds: seconds)
        case .proceed(let reserved):
            ticket = reserved
        }
        let token: String
        do {
            let made: Bool
            (token, made) = try await invitations.invite(access, email: email)
            if let ticket { await limits.endInvitation(ticket, made: made) }
        } catch {
            if let ticket { await limits.endInvitation(ticket, made: false) }
            throw error
        }
        guard let composer = mail.composer else { return .link(token: token) }
        let address = email.cleanedLine
        if let wait = await limits.mayMail(workspaceId: access.workspaceId, email: address) {
            return .mailedRecently(address: address, seconds: wait)
        }
        let language = try mail.outbox.savedLanguage(email: address).flatMap(Lang.init(rawValue:)) ?? lang
        try await mail.outbox.enqueue(kind: .invitation, recipient: address, workspaceId: access.workspaceId,
                                      message: composer.invitation(to: address, inviter: inviterNickname,
                                                                   workspace: access.workspace.name, token: token, lang: language))
        mail.sender?.wake()
        return .mailed(address: address)
    }
}
