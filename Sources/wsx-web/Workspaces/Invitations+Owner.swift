import Foundation

extension Invitations {
    /// A pending invitation as its workspace's owner sees it: to whom, by whom, until when, and
    /// its link (to copy).
    struct Outstanding: Sendable, Equatable {
        let id: Int64
        let email: String
        let inviterNickname: String
        let token: String
        let expiresAt: Date
    }

    /// The workspace's pending invitations, newest first (owner).
    func outstanding(_ access: WorkspaceAccess) throws -> [Outstanding] {
        try access.requireOwner()
        let now = clock.now(), key = self.key
        return try database.query { tx in
            try tx.invitations.sent(workspaceId: access.workspaceId, now: now).map { invitation in
                Outstanding(id: invitation.id, email: invitation.email, inviterNickname: invitation.inviterNickname,
                            token: key.code("invite", invitation.tokenNonce), expiresAt: invitation.expiresAt)
            }
        }
    }

    /// Whether `email` has a pending invitation to the workspace.
    func isPending(_ access: WorkspaceAccess, email: String) throws -> Bool {
        let now = clock.now(), emailKey = User.key(forEmail: email.cleanedLine)
        return try database.query { tx in
            try tx.invitations.pending(workspaceId: access.workspaceId, emailKey: emailKey, now: now) != nil
        }
    }

    /// Gives a pending invitation another `lifetime` from now (owner); answers it, to mail again.
    func renew(_ access: WorkspaceAccess, inviteId: Int64) async throws -> Outstanding {
        try access.requireOwner()
        let now = clock.now(), key = self.key, lifetime = Self.lifetime
        return try await database.write { tx in
            guard var invite = try tx.invitations.invite(id: inviteId), invite.workspaceId == access.workspaceId,
                  invite.isPending(at: now), let nonce = invite.tokenNonce else {
                throw AppError.notFound("invite_invalid")
            }
            invite.expiresAt = now.addingTimeInterval(lifetime)
            try tx.invitations.saveExpiry(of: invite)
            try tx.audit.record(workspaceId: access.workspaceId, actor: access.userId, action: "member.invite_resend",
                                targetUser: nil, targetRoom: nil, detail: invite.email, at: now)
            let inviter = try tx.memberships.nickname(userId: invite.invitedBy) ?? ""
            return Outstanding(id: inviteId, email: invite.email, inviterNickname: inviter, token: key.code("invite", nonce),
                               expiresAt: invite.expiresAt)
        }
    }

    /// Takes a pending invitation back (owner): its link stops working and it leaves its
    /// person's list on every tab.
    func revoke(_ access: WorkspaceAccess, inviteId: Int64) async throws {
        try access.requireOwner()
        let now = clock.now()
        try await database.write { tx in
            guard let invite = try tx.invitations.invite(id: inviteId), invite.workspaceId == access.workspaceId,
                  invite.isPending(at: now) else {
                throw AppError.notFound("invite_invalid")
            }
            try tx.invitations.markRevoked(id: inviteId, at: now)
            try tx.audit.record(workspaceId: access.workspaceId, actor: access.userId, action: "member.invite_revoke",
                                targetUser: nil, targetRoom: nil, detail: invite.email, at: now)
            if let account = try tx.memberships.user(emailKey: invite.emailKey) {
                try tx.publish(OutgoingEvent(.invitationResolved, to: .user(account.id!),
                                             payload: InvitationResolvedPayload(inviteId: inviteId, outcome: "revoked")))
            }
        }
    }
}
