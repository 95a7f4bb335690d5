import Foundation

/// Payloads of the workspace and room events, and the helpers that publish them.
struct RoomPayload: Codable, Sendable {
    let workspaceId: Int64
    let roomId: Int64
    let kind: String
    let name: String
    let description: String
    /// Read-only now (an archived channel); absent while in use.
    var archived: Bool? = nil
}

struct RoomMembershipPayload: Codable, Sendable {
    let workspaceId: Int64
    let roomId: Int64
    let userIds: [Int64]
}

struct WorkspacePayload: Codable, Sendable {
    let workspaceId: Int64
    let name: String
    let description: String
    let ownerId: Int64
}

struct WorkspaceMemberPayload: Codable, Sendable {
    let workspaceId: Int64
    let userId: Int64
    let nickname: String
}

extension Room {
    var payload: RoomPayload {
        RoomPayload(workspaceId: workspaceId, roomId: id!, kind: kind.rawValue, name: name, description: description,
                    archived: isArchived ? true : nil)
    }
}

extension Workspace {
    var payload: WorkspacePayload {
        WorkspacePayload(workspaceId: id!, name: name, description: description, ownerId: ownerId)
    }

    /// The channel every member is in; the audience of workspace-wide events.
    func defaultRoom(_ tx: any StoreTransaction) throws -> Room {
        guard let room = try tx.rooms.defaultRoom(workspaceId: id!) else { throw WorkspaceIntegrityError.noDefaultChannel(id!) }
        return room
    }
}

enum WorkspaceIntegrityError: Error {
    case noDefaultChannel(Int64)
}

/// Adds and removes room members, publishing the membership events the hub applies.
struct RoomMembership: Sendable {

    /// Puts those of `users` not in the room yet into it. Joining starts with nothing unread:
    /// the marker starts at the room's newest message.
    func add(_ tx: any StoreTransaction, room: Room, users: [Int64], at now: Date) throws {
        let new = try users.filter { user in try !tx.rooms.isMember(roomId: room.id!, userId: user) }
        guard !new.isEmpty else { return }
        for user in new {
            try tx.rooms.addMember(roomId: room.id!, userId: user, joinedAt: now,
                                   lastReadMessageId: tx.rooms.latestMessageId(roomId: room.id!))
        }
        try GroupRooms.rememberMembers(tx, of: room)
        try tx.publish(OutgoingEvent(.roomMemberAdded, to: .room(room.id!),
                                     payload: RoomMembershipPayload(workspaceId: room.workspaceId, roomId: room.id!, userIds: new),
                                     membership: .added(room: room.id!, users: new)))
    }

    /// Takes those of `users` in the room out of it.
    func remove(_ tx: any StoreTransaction, room: Room, users: [Int64]) throws {
        let present = try users.filter { user in try tx.rooms.isMember(roomId: room.id!, userId: user) }
        guard !present.isEmpty else { return }
        try tx.rooms.removeMembers(roomId: room.id!, userIds: present)
        try GroupRooms.rememberMembers(tx, of: room)
        try tx.publish(OutgoingEvent(.roomMemberRemoved, to: .room(room.id!),
                                     payload: RoomMembershipPayload(workspaceId: room.workspaceId, roomId: room.id!, userIds: present),
                                     membership: .removed(room: room.id!, users: present)))
    }
}
