import Foundation
import GRDB

/// The people of a workspace: listing, joining, removing. (Invitations: `Invitations`.)
struct MembershipService: Sendable {
    let database: AppDatabase
    let clock: WallClock
    let workspaces: WorkspaceService

    /// A member as the members page lists them.
    struct Member: Sendable, FetchableRecord, Decodable {
        let id: Int64
        let nickname: String
        let email: String
        let role: WorkspaceRole
        let joinedAt: Date
        let avatarFileId: Int64?

        enum CodingKeys: String, CodingKey {
            case id, nickname, email, role, joinedAt = "joined_at", avatarFileId = "avatar_file_id"
        }
    }

    func members(of workspaceId: Int64) async throws -> [Member] {
        try database.read { db in
            try Member.fetchAll(db, sql: """
                SELECT users.id, users.nickname, users.email, workspace_members.role, workspace_members.joined_at,
                       users.avatar_file_id
                FROM workspace_members JOIN users ON users.id = workspace_members.user_id
                WHERE workspace_members.workspace_id = ?
                ORDER BY workspace_members.role = 'owner' DESC, users.nickname, users.id
                """, arguments: [workspaceId])
        }
    }

    /// Makes `user` a member and puts them in the default channel and their old DMs there.
    static func join(_ db: Database, workspace: Workspace, user: User, at now: Date, outbox: EventOutbox) throws {
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
}
