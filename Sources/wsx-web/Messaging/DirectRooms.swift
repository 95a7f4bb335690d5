import Foundation

/// Direct-message rooms: one per pair of members of a workspace, made by the first message.
struct DirectRooms: Sendable {
    let database: AppDatabase
    let clock: WallClock

    /// The key that makes a pair's room unique, whoever opens it.
    static func key(_ a: Int64, _ b: Int64) -> String { "\(min(a, b)):\(max(a, b))" }

    /// The other person, if they are a member of the workspace; else a 404.
    func partner(_ access: WorkspaceAccess, userId: Int64) async throws -> User {
        guard let user = try await database.queryOffLoop({ tx in try tx.workspaces.member(workspaceId: access.workspaceId, userId: userId) })
        else { throw AppError.notFound }
        return user
    }

    /// The pair's room, if it exists already.
    func existing(_ access: WorkspaceAccess, with userId: Int64) async throws -> Room? {
        try await database.queryOffLoop { tx in
            try tx.rooms.conversation(workspaceId: access.workspaceId, kind: .dm, key: Self.key(access.userId, userId))
        }
    }

    /// The pair's room, created (with both as members, and its event) when missing.
    func open(_ access: WorkspaceAccess, with userId: Int64) async throws -> Room {
        let now = clock.now()
        return try await database.write { tx in
            let key = Self.key(access.userId, userId)
            if let room = try tx.rooms.conversation(workspaceId: access.workspaceId, kind: .dm, key: key) {
                return room
            }
            let members = Array(Set([access.userId, userId])).sorted()
            let room = try tx.rooms.create(Room(id: nil, workspaceId: access.workspaceId, kind: .dm, name: "", nameKey: "",
                                                description: "", ownerId: nil, isDefault: false, dmKey: key,
                                                createdAt: now, updatedAt: now), members: members, at: now)
            try tx.publish(OutgoingEvent(.roomCreated, to: .room(room.id!), payload: room.payload,
                                         membership: .added(room: room.id!, users: members)))
            return room
        }
    }

    /// Puts someone who (re)joins a workspace back into their direct messages there, and the
    /// other person too when they are in the workspace: removing a member takes them out of
    /// every room, and without this their old DMs opened but were missing from the sidebar,
    /// got no live events, and their own messages could not be edited.
    static func restore(_ tx: any StoreTransaction, workspaceId: Int64, userId: Int64, at now: Date,
                        membership: RoomMembership) throws {
        for room in try tx.rooms.directRooms(workspaceId: workspaceId, of: userId) {
            let pair = Set(room.dmKey?.split(separator: ":").compactMap { Int64($0) } ?? [])
            guard pair.contains(userId) else { continue }
            let present = try pair.filter { id in try id == userId || tx.workspaces.isMember(workspaceId: workspaceId, userId: id) }
            // A DM with someone who is no longer in the workspace stays closed.
            guard present.count == pair.count else { continue }
            try membership.add(tx, room: room, users: present.sorted(), at: now)
        }
    }

    /// The other member of a DM room, as seen by `userId` (themself for a note-to-self).
    static func partnerId(of room: Room, for userId: Int64) -> Int64 {
        guard let key = room.dmKey else { return userId }
        let ids = key.split(separator: ":").compactMap { Int64($0) }
        return ids.first { $0 != userId } ?? userId
    }
}
