import Foundation
import GRDB

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
    func defaultRoom(_ db: Database) throws -> Room {
        guard let room = try Room.filter(Room.CodingKeys.workspaceId == id! && Room.CodingKeys.isDefault == true).fetchOne(db)
        else { throw WorkspaceIntegrityError.noDefaultChannel(id!) }
        return room
    }
}

enum WorkspaceIntegrityError: Error {
    case noDefaultChannel(Int64)
}

/// Adds and removes room members, publishing the membership events the hub applies.
struct RoomMembership: Sendable {
    let outbox: EventOutbox

    func add(_ db: Database, room: Room, users: [Int64], at now: Date) throws {
        let new = try users.filter { user in
            try RoomMember.fetchOne(db, key: ["room_id": room.id!, "user_id": user]) == nil
        }
        guard !new.isEmpty else { return }
        for user in new {
            try RoomMember(roomId: room.id!, userId: user, joinedAt: now, lastReadMessageId: Self.latestMessageId(db, room: room.id!))
                .insert(db)
        }
        try GroupRooms.rememberMembers(db, of: room)
        try outbox.publish(OutgoingEvent(.roomMemberAdded, to: .room(room.id!),
                                         payload: RoomMembershipPayload(workspaceId: room.workspaceId, roomId: room.id!, userIds: new),
                                         membership: .added(room: room.id!, users: new)), in: db)
    }

    func remove(_ db: Database, room: Room, users: [Int64]) throws {
        let present = try users.filter { user in
            try RoomMember.fetchOne(db, key: ["room_id": room.id!, "user_id": user]) != nil
        }
        guard !present.isEmpty else { return }
        try RoomMember.filter(RoomMember.CodingKeys.roomId == room.id! && present.contains(RoomMember.CodingKeys.userId))
            .deleteAll(db)
        try GroupRooms.rememberMembers(db, of: room)
        try outbox.publish(OutgoingEvent(.roomMemberRemoved, to: .room(room.id!),
                                         payload: RoomMembershipPayload(workspaceId: room.workspaceId, roomId: room.id!, userIds: present),
                                         membership: .removed(room: room.id!, users: present)), in: db)
    }

    /// Joining starts with nothing unread: the marker starts at the room's newest message.
    static func latestMessageId(_ db: Database, room: Int64) throws -> Int64 {
        guard try db.tableExists("messages") else { return 0 }
        return try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM messages WHERE room_id = ?", arguments: [room]) ?? 0
    }
}
