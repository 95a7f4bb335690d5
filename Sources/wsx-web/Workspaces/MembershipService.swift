import Foundation

/// The people of a workspace: listing, joining, removing. (Invitations: `Invitations`.)
struct MembershipService: Sendable {
    let database: AppDatabase
    let clock: WallClock
    /// No longer used here (a removal is `MembershipStore.remove`); kept so the app's wiring
    /// (`AppServices`) stays as it is.
    let workspaces: WorkspaceService

    /// A member as the members page lists them.
    struct Member: Sendable, Decodable {
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
        try await database.queryOffLoop { tx in try tx.memberships.members(workspaceId: workspaceId) }
    }

    /// Removes a member from the workspace and its rooms (owner; not the owner themself).
    func remove(_ access: WorkspaceAccess, userId: Int64) async throws {
        try access.requireOwner()
        guard userId != access.userId else { throw AppError.conflict("error_owner_cannot_leave") }
        let now = clock.now()
        try await database.write { tx in
            guard try tx.memberships.isMember(workspaceId: access.workspaceId, userId: userId) else {
                throw AppError.notFound
            }
            try tx.memberships.remove(workspace: access.workspace, userId: userId, at: now)
            try tx.audit.record(workspaceId: access.workspaceId, actor: access.userId, action: "member.remove",
                                targetUser: userId, targetRoom: nil, detail: "", at: now)
        }
    }
}
