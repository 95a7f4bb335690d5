import Foundation

/// Group conversations: 3 to 9 members of a workspace talking outside any channel. Anyone in
/// one may add another workspace member (who then reads its whole history) or leave it. Its
/// name is its members' nicknames, read when shown, so a new nickname shows at once.
struct GroupRooms: Sendable {
    let database: AppDatabase
    let clock: WallClock

    /// How many people a group holds, the one who starts it included.
    static let sizes = 3...9

    /// A member of a group, as its pages list them.
    struct Person: Sendable, Equatable {
        let id: Int64
        let nickname: String
        let avatarFileId: Int64?
    }

    /// A group as one of its members sees it.
    struct View: Sendable {
        let access: WorkspaceAccess
        let room: Room
        /// Everyone in it, by nickname.
        let members: [Person]

        /// The group's name for the viewer: the others' nicknames.
        var title: String { GroupRooms.title(members, viewer: access.userId) }
    }

    /// Where starting a conversation with some people leads.
    enum Opened: Equatable {
        /// One other person (or none but oneself): their direct messages.
        case direct(Int64)
        /// The group of exactly these people, new or found.
        case group(Int64)
    }

    /// The key of a group's member set: their ids, sorted, joined by ":".
    static func key(_ ids: some Sequence<Int64>) -> String {
        Set(ids).sorted().map(String.init).joined(separator: ":")
    }

    /// A group's name as `viewer` reads it: the other members' nicknames in nickname order
    /// (their own alone when nobody else is left).
    static func title(_ members: [Person], viewer: Int64) -> String {
        let others = members.filter { $0.id != viewer }
        return (others.isEmpty ? members : others).map(\.nickname)
            .sorted { $0.localizedStandardCompare($1) == .orderedAscending }.joined(separator: ", ")
    }

    /// Keeps a group's `dm_key` equal to its members after they change (a no-op for other rooms).
    static func rememberMembers(_ tx: any StoreTransaction, of room: Room) throws {
        guard room.kind == .group else { return }
        try tx.rooms.setConversationKey(roomId: room.id!, key: key(tx.rooms.memberIds(roomId: room.id!)))
    }

    /// Starts a conversation between the viewer and `requested` (user ids of workspace members;
    /// the viewer's own is allowed and ignored): one other person opens their DM; two to eight
    /// open the group of exactly these people, created (with its event) when there is none.
    /// Refuses, with the form's message, nobody chosen, more than 9 in all, or someone who is
    /// not a member of the workspace.
    func open(_ access: WorkspaceAccess, with requested: [Int64]) async throws -> Opened {
        let others = Set(requested).subtracting([access.userId])
        guard !others.isEmpty else { throw FormProblems([.member: "error_group_choose"]) }
        guard others.count + 1 <= Self.sizes.upperBound else {
            throw FormProblems([.member: "error_group_too_many"])
        }
        let now = clock.now()
        return try await database.write { tx in
            let known = try tx.workspaces.memberCount(workspaceId: access.workspaceId, among: others)
            guard known == others.count else { throw FormProblems([.member: "error_group_not_member"]) }
            if others.count == 1 { return .direct(others.first!) }
            let members = others.union([access.userId]).sorted()
            let key = Self.key(members)
            if let found = try tx.rooms.conversation(workspaceId: access.workspaceId, kind: .group, key: key) {
                return .group(found.id!)
            }
            let room = try tx.rooms.create(Room(id: nil, workspaceId: access.workspaceId, kind: .group, name: "", nameKey: "",
                                                description: "", ownerId: access.userId, isDefault: false, dmKey: key,
                                                createdAt: now, updatedAt: now), members: members, at: now)
            try tx.publish(OutgoingEvent(.roomCreated, to: .room(room.id!), payload: room.payload,
                                         membership: .added(room: room.id!, users: members)))
            return .group(room.id!)
        }
    }

    /// The group `id` of the workspace, with its members, for someone in it; anyone else
    /// (a workspace member outside it, or someone who left) gets the 404 of a room that is not there.
    func view(_ access: WorkspaceAccess, id: Int64) async throws -> View {
        try await database.queryOffLoop { tx in
            guard let room = try tx.rooms.room(id: id), room.kind == .group, room.workspaceId == access.workspaceId,
                  try tx.rooms.isMember(roomId: id, userId: access.userId)
            else { throw AppError.notFound }
            return View(access: access, room: room, members: try tx.rooms.groupMembers(of: [id])[id] ?? [])
        }
    }

    /// Adds a workspace member to the group (who then reads its whole history). Adding someone
    /// already in it changes nothing; a tenth person is refused.
    func add(_ view: View, userId: Int64) async throws {
        let now = clock.now(), membership = RoomMembership()
        try await database.write { tx in
            guard try tx.workspaces.isMember(workspaceId: view.room.workspaceId, userId: userId) else {
                throw AppError.conflict("error_not_workspace_member")
            }
            guard try tx.rooms.isMember(roomId: view.room.id!, userId: view.access.userId) else {
                throw AppError.notFound
            }
            guard try !tx.rooms.isMember(roomId: view.room.id!, userId: userId) else { return }
            guard try tx.rooms.memberCount(roomId: view.room.id!) < Self.sizes.upperBound else {
                throw AppError.conflict("error_group_full")
            }
            // The history stays visible: the newcomer starts with nothing unread, like a channel's.
            try membership.add(tx, room: view.room, users: [userId], at: now)
        }
    }

    /// Takes the viewer out of the group; its messages stay for the others.
    func leave(_ view: View) async throws {
        let membership = RoomMembership()
        try await database.write { tx in
            try membership.remove(tx, room: view.room, users: [view.access.userId])
        }
    }
}
