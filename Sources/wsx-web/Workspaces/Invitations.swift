import Foundation
import GRDB

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
        let now = clock.now(), outbox = database.outbox, key = self.key
        let emailKey = User.key(forEmail: email)
        return try await database.writer.write { db -> (token: String, made: Bool) in
            let user = try User.filter(User.CodingKeys.emailKey == emailKey).fetchOne(db)
            if let user, try WorkspaceMember.fetchOne(db, key: ["workspace_id": access.workspaceId, "user_id": user.id!]) != nil {
                // Members are on the members page already: this tells the owner nothing new.
                throw FormProblems([.email: "error_already_member"])
            }
            if let pending = try Self.pendingInvite(db, workspaceId: access.workspaceId, emailKey: emailKey, now: now),
               let token = pending.tokenNonce.map({ key.code("invite", $0) }) {
                return (token, false)
            }
            let (invite, token) = try Self.insert(db, workspaceId: access.workspaceId, email: email, invitedBy: access.userId,
                                                  key: key, at: now)
            try AuditTrail.record(db, workspaceId: access.workspaceId, actor: access.userId, action: "member.invite",
                                  detail: email, at: now)
            if let user, user.emailConfirmedAt != nil {
                // Their workspaces page lists it as it arrives, once their address is confirmed:
                // an account someone made with another person's address learns of nothing.
                let inviter = try String.fetchOne(db, sql: "SELECT nickname FROM users WHERE id = ?", arguments: [access.userId]) ?? ""
                try outbox.publish(OutgoingEvent(.invitationReceived, to: .user(user.id!),
                                                 payload: InvitationPayload(invite, workspaceName: access.workspace.name,
                                                                            inviter: inviter, token: token)), in: db)
            }
            return (token, true)
        }
    }

    /// Writes a new invitation (its token made from a fresh nonce with the server's key);
    /// answers it and its token.
    /// `claimsAccount`: the import that made the address's account without a password made this
    /// invitation, and following it lets its person choose that password (no other does).
    static func insert(_ db: Database, workspaceId: Int64, email: String, invitedBy: Int64, key: ServerKey,
                       at now: Date, claimsAccount: Bool = false) throws -> (Invite, String) {
        let nonce = SecretToken.generate()
        let token = key.code("invite", nonce)
        var invite = Invite(id: nil, workspaceId: workspaceId, email: email, emailKey: User.key(forEmail: email),
                            tokenHash: SecretToken.hash(token), tokenNonce: nonce, invitedBy: invitedBy, createdAt: now,
                            expiresAt: now.addingTimeInterval(lifetime), usedAt: nil, declinedAt: nil)
        invite.claimsAccount = claimsAccount
        return (try invite.inserted(db), token)
    }

    /// The pending invitations for `user`'s address, newest first; none until the address is
    /// confirmed (the invitation's own link, sent to the address, still works).
    func pending(for user: User) throws -> [Pending] {
        guard user.emailConfirmedAt != nil else { return [] }
        let now = clock.now(), key = self.key
        return try database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT invites.*, workspaces.name AS workspace_name, users.nickname AS inviter
                FROM invites JOIN workspaces ON workspaces.id = invites.workspace_id JOIN users ON users.id = invites.invited_by
                WHERE invites.email_key = ? AND invites.used_at IS NULL AND invites.declined_at IS NULL AND invites.revoked_at IS NULL
                  AND invites.expires_at > ?
                  AND invites.token_nonce IS NOT NULL
                  AND NOT EXISTS (SELECT 1 FROM workspace_members WHERE workspace_id = invites.workspace_id AND user_id = ?)
                ORDER BY invites.id DESC
                """, arguments: [user.emailKey, now, user.id]).map { row in
                Pending(id: row["id"], workspaceName: row["workspace_name"], inviterNickname: row["inviter"],
                        token: key.code("invite", row["token_nonce"] as String), expiresAt: row["expires_at"])
            }
        }
    }

    /// The pending invitation behind a token, with its workspace and who sent it.
    func find(token: String) throws -> Found? {
        let now = clock.now()
        return try database.read { db in
            guard let invite = try Invite.filter(Invite.CodingKeys.tokenHash == SecretToken.hash(token)).fetchOne(db),
                  invite.isPending(at: now),
                  let workspace = try Workspace.fetchOne(db, key: invite.workspaceId)
            else { return nil }
            let inviter = try String.fetchOne(db, sql: "SELECT nickname FROM users WHERE id = ?", arguments: [invite.invitedBy]) ?? ""
            return Found(invite: invite, workspace: workspace, inviterNickname: inviter)
        }
    }

    /// Accepts for `userId`, who must be the invited address's account: they join the
    /// workspace. Throws `invite_invalid` (404) for an invitation that is used, declined or
    /// expired, also when two acceptances race.
    func accept(token: String, userId: Int64) async throws -> Workspace {
        let now = clock.now(), outbox = database.outbox
        return try await database.writer.write { db in
            guard let invite = try Invite.filter(Invite.CodingKeys.tokenHash == SecretToken.hash(token)).fetchOne(db),
                  invite.isPending(at: now),
                  let workspace = try Workspace.fetchOne(db, key: invite.workspaceId),
                  let user = try User.fetchOne(db, key: userId), user.isActive
            else { throw AppError.notFound("invite_invalid") }
            guard user.emailKey == invite.emailKey else { throw AppError.forbidden("invite_other_account") }
            try Invite.filter(key: invite.id!).updateAll(db, Invite.CodingKeys.usedAt.set(to: now))
            if try WorkspaceMember.fetchOne(db, key: ["workspace_id": workspace.id!, "user_id": userId]) == nil {
                try MembershipService.join(db, workspace: workspace, user: user, at: now, outbox: outbox)
                try AuditTrail.record(db, workspaceId: workspace.id!, actor: userId, action: "member.join",
                                      targetUser: userId, detail: "invite", at: now)
            }
            try outbox.publish(OutgoingEvent(.invitationResolved, to: .user(userId),
                                             payload: InvitationResolvedPayload(inviteId: invite.id!, outcome: "accepted")), in: db)
            return workspace
        }
    }

    /// Declines (its person, signed in or holding the link): it leaves their list, and the
    /// workspace may invite them again.
    func decline(token: String, userId: Int64?) async throws {
        let now = clock.now(), outbox = database.outbox
        try await database.writer.write { db in
            guard let invite = try Invite.filter(Invite.CodingKeys.tokenHash == SecretToken.hash(token)).fetchOne(db),
                  invite.isPending(at: now)
            else { throw AppError.notFound("invite_invalid") }
            if let userId, let user = try User.fetchOne(db, key: userId), user.emailKey != invite.emailKey {
                throw AppError.forbidden("invite_other_account")
            }
            try Invite.filter(key: invite.id!).updateAll(db, Invite.CodingKeys.declinedAt.set(to: now))
            try AuditTrail.record(db, workspaceId: invite.workspaceId, actor: userId, action: "member.decline",
                                  detail: invite.email, at: now)
            if let account = try User.filter(User.CodingKeys.emailKey == invite.emailKey).fetchOne(db) {
                try outbox.publish(OutgoingEvent(.invitationResolved, to: .user(account.id!),
                                                 payload: InvitationResolvedPayload(inviteId: invite.id!, outcome: "declined")), in: db)
            }
        }
    }

    /// The address's pending invitation to the workspace, if any.
    static func pendingInvite(_ db: Database, workspaceId: Int64, emailKey: String, now: Date) throws -> Invite? {
        try Invite.filter(Invite.CodingKeys.workspaceId == workspaceId && Invite.CodingKeys.emailKey == emailKey
                          && Invite.CodingKeys.usedAt == nil && Invite.CodingKeys.declinedAt == nil && Invite.CodingKeys.revokedAt == nil
                          && Invite.CodingKeys.expiresAt > now)
            .order(Invite.CodingKeys.id.desc).fetchOne(db)
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
