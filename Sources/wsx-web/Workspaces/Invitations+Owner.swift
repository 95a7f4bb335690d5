import Foundation
import GRDB

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
        return try database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT invites.id, invites.email, invites.token_nonce, invites.expires_at, COALESCE(users.nickname, '') AS inviter
                FROM invites LEFT JOIN users ON users.id = invites.invited_by
                WHERE invites.workspace_id = ? AND invites.used_at IS NULL AND invites.declined_at IS NULL
                  AND invites.revoked_at IS NULL AND invites.expires_at > ? AND invites.token_nonce IS NOT NULL
                ORDER BY invites.id DESC LIMIT 200
                """, arguments: [access.workspaceId, now]).map { row in
                Outstanding(id: row["id"], email: row["email"], inviterNickname: row["inviter"],
                            token: key.code("invite", row["token_nonce"] as String), expiresAt: row["expires_at"])
            }
        }
    }

    /// Whether `email` has a pending invitation to the workspace.
    func isPending(_ access: WorkspaceAccess, email: String) throws -> Bool {
        let now = clock.now(), emailKey = User.key(forEmail: email.cleanedLine)
        return try database.read { db in
            try Self.pendingInvite(db, workspaceId: access.workspaceId, emailKey: emailKey, now: now) != nil
        }
    }

    /// Gives a pending invitation another `lifetime` from now (owner); answers it, to mail again.
    func renew(_ access: WorkspaceAccess, inviteId: Int64) async throws -> Outstanding {
        try access.requireOwner()
        let now = clock.now(), key = self.key, lifetime = Self.lifetime
        return try await database.writer.write { db in
            guard var invite = try Invite.fetchOne(db, key: inviteId), invite.workspaceId == access.workspaceId,
                  invite.isPending(at: now), let nonce = invite.tokenNonce else {
                throw AppError.notFound("invite_invalid")
            }
            invite.expiresAt = now.addingTimeInterval(lifetime)
            try invite.update(db, columns: [Invite.CodingKeys.expiresAt])
            try AuditTrail.record(db, workspaceId: access.workspaceId, actor: access.userId, action: "member.invite_resend",
                                  detail: invite.email, at: now)
            let inviter = try String.fetchOne(db, sql: "SELECT nickname FROM users WHERE id = ?", arguments: [invite.invitedBy]) ?? ""
            return Outstanding(id: inviteId, email: invite.email, inviterNickname: inviter, token: key.code("invite", nonce),
                               expiresAt: invite.expiresAt)
        }
    }

    /// Takes a pending invitation back (owner): its link stops working and it leaves its
    /// person's list on every tab.
    func revoke(_ access: WorkspaceAccess, inviteId: Int64) async throws {
        try access.requireOwner()
        let now = clock.now(), outbox = database.outbox
        try await database.writer.write { db in
            guard let invite = try Invite.fetchOne(db, key: inviteId), invite.workspaceId == access.workspaceId,
                  invite.isPending(at: now) else {
                throw AppError.notFound("invite_invalid")
            }
            try Invite.filter(key: inviteId).updateAll(db, Invite.CodingKeys.revokedAt.set(to: now))
            try AuditTrail.record(db, workspaceId: access.workspaceId, actor: access.userId, action: "member.invite_revoke",
                                  detail: invite.email, at: now)
            if let account = try User.filter(User.CodingKeys.emailKey == invite.emailKey).fetchOne(db) {
                try outbox.publish(OutgoingEvent(.invitationResolved, to: .user(account.id!),
                                                 payload: InvitationResolvedPayload(inviteId: inviteId, outcome: "revoked")), in: db)
            }
        }
    }
}
