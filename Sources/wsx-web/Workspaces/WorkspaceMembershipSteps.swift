import Foundation

/// What joining or leaving a workspace does beyond the membership row itself, the same on every
/// backend (each `MembershipStore` writes and deletes its row, then takes these steps in the
/// same transaction).
enum WorkspaceMembershipSteps {
    /// `user` has just become a member: into the default channel, back into their old direct
    /// messages there, and the workspace is told.
    static func joined(_ tx: any StoreTransaction, workspace: Workspace, user: User, at now: Date) throws {
        let room = try workspace.defaultRoom(tx)
        let membership = RoomMembership()
        try membership.add(tx, room: room, users: [user.id!], at: now)
        try DirectRooms.restore(tx, workspaceId: workspace.id!, userId: user.id!, at: now, membership: membership)
        try tx.publish(OutgoingEvent(.workspaceMemberAdded, to: .room(room.id!),
                                     payload: WorkspaceMemberPayload(workspaceId: workspace.id!, userId: user.id!, nickname: user.nickname)))
    }

    /// The person is about to leave: they and the workspace are told, and they leave `rooms`
    /// (every room of the workspace they are in).
    static func leaving(_ tx: any StoreTransaction, workspace: Workspace, userId: Int64, rooms: [Room]) throws {
        let nickname = try tx.memberships.nickname(userId: userId) ?? ""
        let payload = WorkspaceMemberPayload(workspaceId: workspace.id!, userId: userId, nickname: nickname)
        try tx.publish(OutgoingEvent(.workspaceMemberRemoved, to: .user(userId), payload: payload))
        try tx.publish(OutgoingEvent(.workspaceMemberRemoved, to: .room(try workspace.defaultRoom(tx).id!), payload: payload))
        let membership = RoomMembership()
        for room in rooms { try membership.remove(tx, room: room, users: [userId]) }
    }
}
