import Foundation
import GRDB

/// The people of a workspace: listing, inviting by email, removing, and accepting invitations.
struct MembershipService: Sendable {
    let database: AppDatabase
    let clock: WallClock
    let workspaces: WorkspaceService

    /// How long an invitation link works.
    static let inviteLifetime: TimeInterval = 7 * 24 * 60 * 60

    /// A member as the members page lists them.
    struct Member: Sendable, FetchableRecord, Decodable {
        let id: Int64
        let nickname: String
        let email: String
        let role: WorkspaceRole
        let joinedAt: Date

        enum CodingKeys: String, CodingKey {
            case id, nickname, email, role, joinedAt = "joined_at"
        }
    }

    func members(of workspaceId: Int64) async throws -> [Member] {
        try database.read { db in
            try Member.fetchAll(db, sql: """
                SELECT users.id, users.nickname, users.email, workspace_members.role, workspace_members.joined_at
                FROM workspace_members JOIN users ON users.id = workspace_members.user_id
                WHERE workspace_members.workspace_id = ?
                ORDER BY workspace_members.role = 'owner' DESC, users.nickname, users.id
                """, arguments: [workspaceId])
        }
    }

    /// What inviting an email did.
    enum InviteOutcome: Equatable, Sendable {
        /// The email has an account: they are a member now.
        case added(nickname: String)
        /// No account yet: a single-use link (its token) to show the inviter.
        case link(token: String)
    }

    /// Invites `email` into the workspace (owner).
    func invite(_ access: WorkspaceAccess, email rawEmail: String) async throws -> InviteOutcome {
        try access.requireOwner()
        let email = rawEmail.cleanedLine
        var problems = FormProblems()
        AccountRules.checkEmail(email, into: &problems)
        try problems.throwIfAny()
        let now = clock.now(), outbox = database.outbox
        return try await database.writer.write { db in
            if let user = try User.filter(User.CodingKeys.emailKey == User.key(forEmail: email)).fetchOne(db) {
                if try WorkspaceMember.fetchOne(db, key: ["workspace_id": access.workspaceId, "user_id": user.id!]) != nil {
                    throw FormProblems([.email: "error_already_member"])
                }
                try join(db, workspace: access.workspace, user: user, at: now, outbox: outbox)
                try AuditTrail.record(db, workspaceId: access.workspaceId, actor: access.userId, action: "member.invite",
                                      targetUser: user.id!, detail: user.email, at: now)
                return .added(nickname: user.nickname)
            }
            let token = SecretToken.generate()
            _ = try Invite(id: nil, workspaceId: access.workspaceId, email: email, tokenHash: SecretToken.hash(token),
                           invitedBy: access.userId, createdAt: now, expiresAt: now.addingTimeInterval(Self.inviteLifetime),
                           usedAt: nil).inserted(db)
            try AuditTrail.record(db, workspaceId: access.workspaceId, actor: access.userId, action: "member.invite",
                                  detail: email, at: now)
            return .link(token: token)
        }
    }

    /// Makes `user` a member and puts them in the default channel.
    private func join(_ db: Database, workspace: Workspace, user: User, at now: Date, outbox: EventOutbox) throws {
        try WorkspaceMember(workspaceId: workspace.id!, userId: user.id!, role: .member, joinedAt: now).insert(db)
        let room = try workspace.defaultRoom(db)
        try RoomMembership(outbox: outbox).add(db, room: room, users: [user.id!], at: now)
        try DirectRooms.restore(db, workspaceId: workspace.id!, userId: user.id!, at: now, outbox: outbox)
        try outbox.publish(OutgoingEvent(.workspaceMemberAdded, to: .room(room.id!),
                                         payload: WorkspaceMemberPayload(workspaceId: workspace.id!, userId: user.id!,
                                                                         nickname: user.nickname)), in: db)
    }

    /// Removes a member from the workspace and its rooms (owner; not the owner themself).
    func remove(_ access: WorkspaceAccess, userId: Int64) async throws {
        try access.requireOwner()
        guard userId != access.userId else { throw AppError.conflict("error_owner_cannot_leave") }
        let now = clock.now(), workspaces = self.workspaces
        try await database.writer.write { db in
            guard try WorkspaceMember.fetchOne(db, key: ["workspace_id": access.workspaceId, "user_id": userId]) != nil else {
                throw AppError.notFound
            }
            try workspaces.removeFromWorkspace(db, workspace: access.workspace, userId: userId, at: now)
            try AuditTrail.record(db, workspaceId: access.workspaceId, actor: access.userId, action: "member.remove",
                                  targetUser: userId, at: now)
        }
    }

    /// An unused, unexpired invitation and its workspace.
    func pendingInvite(token: String) async throws -> (invite: Invite, workspace: Workspace)? {
        let now = clock.now()
        return try database.read { db in
            guard let invite = try Invite.filter(Invite.CodingKeys.tokenHash == SecretToken.hash(token)).fetchOne(db),
                  invite.usedAt == nil, invite.expiresAt > now,
                  let workspace = try Workspace.fetchOne(db, key: invite.workspaceId)
            else { return nil }
            return (invite, workspace)
        }
    }

    /// Uses the invitation up and makes `userId` a member. The signed-in account must be the
    /// one invited. Throws `AppError.notFound("invite_invalid")` for used or expired links, also
    /// when two acceptances race.
    func accept(token: String, userId: Int64) async throws -> Workspace {
        let now = clock.now(), outbox = database.outbox
        return try await database.writer.write { db in
            guard let invite = try Invite.filter(Invite.CodingKeys.tokenHash == SecretToken.hash(token)
                                                 && Invite.CodingKeys.usedAt == nil && Invite.CodingKeys.expiresAt > now).fetchOne(db),
                  let workspace = try Workspace.fetchOne(db, key: invite.workspaceId),
                  let user = try User.fetchOne(db, key: userId)
            else { throw AppError.notFound("invite_invalid") }
            guard user.emailKey == User.key(forEmail: invite.email) else { throw AppError.forbidden("invite_other_account") }
            try Invite.filter(key: invite.id!).updateAll(db, Invite.CodingKeys.usedAt.set(to: now))
            if try WorkspaceMember.fetchOne(db, key: ["workspace_id": workspace.id!, "user_id": userId]) == nil {
                try join(db, workspace: workspace, user: user, at: now, outbox: outbox)
                try AuditTrail.record(db, workspaceId: workspace.id!, actor: userId, action: "member.join",
                                      targetUser: userId, detail: "invite", at: now)
            }
            return workspace
        }
    }
}
