import Foundation

/// Invitations to a workspace: they ask before they add.
///
/// Inviting an address that had an account used to make them a member at once, and the page
/// named them: anyone with a workspace could test which addresses have accounts, and put people
/// into workspaces. Now an invitation only ever waits for its person: the inviter gets the same
/// answer (a link to pass on) whether the address has an account or not; the person sees it on
/// their workspaces page (live, when they have an account) and accepts or declines it there.
/// Invitations expire after `lifetime`; a declined or expired one can be sent again.
///
/// A link's token is made from a nonce kept in the row with the server's key (`ServerKey`), so
/// the person's own list can link to it again, while the database alone (which keeps only the
/// token's hash) cannot.
struct Invitations: Sendable {
    let database: AppDatabase
    let clock: WallClock
    let key: ServerKey

    static let lifetime: TimeInterval = 7 * 24 * 60 * 60

    /// A pending invitation as its person's list shows it.
    struct Pending: Sendable, Equatable {
        let id: Int64
        let workspaceName: String
        let inviterNickname: String
        let token: String
        let expiresAt: Date
    }

    /// An invitation found by its token, with what its page names.
    struct Found: Sendable {
        let invite: Invite
        let workspace: Workspace
        let inviterNickname: String
    }

    /// Invites `email` into the workspace (owner); returns the link's token, and whether a new
    /// invitation was made. A pending invitation for the address is answered with its own link
    /// again.
    func invite(_ access: WorkspaceAccess, email rawEmail: String) async throws -> (token: String, made: Bool) {
        try access.requireOwner()
        let email = rawEmail.cleanedLine
        var problems = FormProblems()
        AccountRules.checkEmail(email, into: &problems)
        try problems.throwIfAny()
        let now = clock.now(), key = self.key
        let emailKey = User.key(forEmail: email)
        return try await database.write { tx -> (token: String, made: Bool) in
            let user = try tx.memberships.user(emailKey: emailKey)
            if let user, try tx.memberships.isMember(workspaceId: access.workspaceId, userId: user.id!) {
                // Members are on the members page already: this tells the owner nothing new.
                throw FormProblems([.email: "error_already_member"])
            }
            if let pending = try tx.invitations.pending(workspaceId: access.workspaceId, emailKey: emailKey, now: now),
               let token = pending.tokenNonce.map({ key.code("invite", $0) }) {
                return (token, false)
            }
            let (invite, token) = try Self.insert(tx, workspaceId: access.workspaceId, email: email, invitedBy: access.userId,
                                                  key: key, at: now)
            try tx.audit.record(workspaceId: access.workspaceId, actor: access.userId, action: "member.invite",
                                targetUser: nil, targetRoom: nil, detail: email, at: now)
            if let user, user.emailConfirmedAt != nil {
                // Their workspaces page lists it as it arrives, once their address is confirmed:
                // an account someone made with another person's address learns of nothing.
                let inviter = try tx.memberships.nickname(userId: access.userId) ?? ""
                try tx.publish(OutgoingEvent(.invitationReceived, to: .user(user.id!),
                                             payload: InvitationPayload(invite, workspaceName: access.workspace.name,
                                                                        inviter: inviter, token: token)))
            }
            return (token, true)
        }
    }

    /// Writes a new invitation (its token made from a fresh nonce with the server's key);
    /// answers it and its token.
    /// `claimsAccount`: the import that made the address's account without a password made this
    /// invitation, and following it lets its person choose that password (no other does).
    static func insert(_ tx: any StoreTransaction, workspaceId: Int64, email: String, invitedBy: Int64, key: ServerKey,
                       at now: Date, claimsAccount: Bool = false) throws -> (Invite, String) {
        let nonce = SecretToken.generate()
        let token = key.code("invite", nonce)
        var invite = Invite(id: nil, workspaceId: workspaceId, email: email, emailKey: User.key(forEmail: email),
                            tokenHash: SecretToken.hash(token), tokenNonce: nonce, invitedBy: invitedBy, createdAt: now,
                            expiresAt: now.addingTimeInterval(lifetime), usedAt: nil, declinedAt: nil)
        invite.claimsAccount = claimsAccount
        return (try tx.invitations.insert(invite), token)
    }

    /// The pending invitations for `user`'s address, newest first; none until the address is
    /// confirmed (the invitation's own link, sent to the address, still works).
    func pending(for user: User) throws -> [Pending] {
        guard user.emailConfirmedAt != nil else { return [] }
        let now = clock.now(), key = self.key
        return try database.query { tx in
            try tx.invitations.received(emailKey: user.emailKey, userId: user.id, now: now).map { invitation in
                Pending(id: invitation.id, workspaceName: invitation.workspaceName, inviterNickname: invitation.inviterNickname,
                        token: key.code("invite", invitation.tokenNonce), expiresAt: invitation.expiresAt)
            }
        }
    }

    /// The pending invitation behind a token, with its workspace and who sent it.
    func find(token: String) throws -> Found? {
        let now = clock.now()
        return try database.query { tx in
            guard let invite = try tx.invitations.invite(tokenHash: SecretToken.hash(token)),
                  invite.isPending(at: now),
                  let workspace = try tx.memberships.workspace(id: invite.workspaceId)
            else { return nil }
            let inviter = try tx.memberships.nickname(userId: invite.invitedBy) ?? ""
            return Found(invite: invite, workspace: workspace, inviterNickname: inviter)
        }
    }

    /// Accepts for `userId`, who must be the invited address's account: they join the
    /// workspace. Throws `invite_invalid` (404) for an invitation that is used, declined or
    /// expired, also when two acceptances race.
    func accept(token: String, userId: Int64) async throws -> Workspace {
        let now = clock.now()
        return try await database.write { tx in
            guard let invite = try tx.invitations.invite(tokenHash: SecretToken.hash(token)),
                  invite.isPending(at: now),
                  let workspace = try tx.memberships.workspace(id: invite.workspaceId),
                  let user = try tx.memberships.user(id: userId), user.isActive
            else { throw AppError.notFound("invite_invalid") }
            guard user.emailKey == invite.emailKey else { throw AppError.forbidden("invite_other_account") }
            try tx.invitations.markUsed(id: invite.id!, at: now)
            if try !tx.memberships.isMember(workspaceId: workspace.id!, userId: userId) {
                try tx.memberships.join(workspace: workspace, user: user, at: now)
                try tx.audit.record(workspaceId: workspace.id!, actor: userId, action: "member.join",
                                    targetUser: userId, targetRoom: nil, detail: "invite", at: now)
            }
            try tx.publish(OutgoingEvent(.invitationResolved, to: .user(userId),
                                         payload: InvitationResolvedPayload(inviteId: invite.id!, outcome: "accepted")))
            return workspace
        }
    }

    /// Declines (its person, signed in or holding the link): it leaves their list, and the
    /// workspace may invite them again.
    func decline(token: String, userId: Int64?) async throws {
        let now = clock.now()
        try await database.write { tx in
            guard let invite = try tx.invitations.invite(tokenHash: SecretToken.hash(token)),
                  invite.isPending(at: now)
            else { throw AppError.notFound("invite_invalid") }
            if let userId, let user = try tx.memberships.user(id: userId), user.emailKey != invite.emailKey {
                throw AppError.forbidden("invite_other_account")
            }
            try tx.invitations.markDeclined(id: invite.id!, at: now)
            try tx.audit.record(workspaceId: invite.workspaceId, actor: userId, action: "member.decline",
                                targetUser: nil, targetRoom: nil, detail: invite.email, at: now)
            if let account = try tx.memberships.user(emailKey: invite.emailKey) {
                try tx.publish(OutgoingEvent(.invitationResolved, to: .user(account.id!),
                                             payload: InvitationResolvedPayload(inviteId: invite.id!, outcome: "declined")))
            }
        }
    }
}

/// An invitation that arrived (to its person's own streams): what their list shows.
struct InvitationPayload: Codable, Sendable {
    let inviteId: Int64
    let workspaceName: String
    let inviterNickname: String
    let url: String
    let expiresAt: String

    init(_ invite: Invite, workspaceName: String, inviter: String, token: String) {
        inviteId = invite.id!
        self.workspaceName = workspaceName
        inviterNickname = inviter
        url = Paths.invite(token)
        expiresAt = Timestamps.iso(invite.expiresAt)
    }
}

/// An invitation accepted or declined: it leaves its person's list on every tab.
struct InvitationResolvedPayload: Codable, Sendable {
    let inviteId: Int64
    let outcome: String
}
