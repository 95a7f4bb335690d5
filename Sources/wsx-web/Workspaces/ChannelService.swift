import Foundation

/// Channels of a workspace: create, browse, join, leave, edit, delete, hand over.
/// Each method is one transaction with its audit entry and events.
struct ChannelService: Sendable {
    let database: AppDatabase
    let clock: WallClock
    /// Channel views as last read, by workspace, person and channel: every visit and every post
    /// asks one, and none of what it holds changes with a post.
    private let views: VersionedCache<ViewKey, View>

    private struct ViewKey: Hashable, Sendable {
        let workspaceId: Int64, userId: Int64, channelId: Int64
    }

    init(database: AppDatabase, clock: WallClock) {
        self.database = database
        self.clock = clock
        views = VersionedCache("channel views", of: database, clock: clock, capacity: 4096)
    }

    private var membership: RoomMembership { RoomMembership() }

    /// A channel as the browse page and sidebar list it.
    struct Listing: Sendable, Decodable {
        let id: Int64
        let name: String
        let description: String
        let isDefault: Bool
        let memberCount: Int
        let joined: Bool
        let visibility: Room.Visibility

        enum CodingKeys: String, CodingKey {
            case id, name, description, isDefault = "is_default", memberCount = "member_count", joined, visibility
        }
    }

    /// A channel of the workspace, as `access` sees it, and whether they are in it.
    struct View: Sendable {
        let room: Room
        let isMember: Bool
        let memberCount: Int
        let access: WorkspaceAccess

        /// The channel's owner or the workspace's owner may edit, delete and hand it over.
        var canManage: Bool { room.ownerId == access.userId || access.isOwner }

        func requireManager() throws {
            guard canManage else { throw AppError.forbidden("error_channel_manager_only") }
        }
    }

    /// Every channel of the workspace the viewer may know of (the public ones, and private ones
    /// they are in), with member counts and whether they joined.
    func browse(_ access: WorkspaceAccess) async throws -> [Listing] {
        try await database.queryOffLoop { tx in try tx.rooms.channelListings(workspaceId: access.workspaceId, userId: access.userId) }
    }

    /// The workspace's private channels with their member counts, for its owner, who sees
    /// that they exist (and may delete them) but not what is said in them.
    func privateChannels(_ access: WorkspaceAccess) async throws -> [Listing] {
        guard access.isOwner else { throw AppError.forbidden("error_owner_only") }
        return try await database.queryOffLoop { tx in
            try tx.rooms.privateChannelListings(workspaceId: access.workspaceId, userId: access.userId)
        }
    }

    /// The channels the viewer is in, for the sidebar and workspace home.
    func joined(_ access: WorkspaceAccess) async throws -> [Listing] {
        try await browse(access).filter(\.joined)
    }

    /// One channel of this workspace, or a 404 (a channel of another workspace is not found here).
    func channel(_ access: WorkspaceAccess, id: Int64) async throws -> View {
        try await database.queryOffLoop { tx in try Self.view(tx, access, id: id) }
    }

    /// The workspace through `userId`'s membership and the channel in it, in one read (the
    /// channel page asks this on every visit).
    func channel(workspaceId: Int64, userId: Int64, id: Int64) async throws -> View {
        let key = ViewKey(workspaceId: workspaceId, userId: userId, channelId: id)
        return try await views.value(for: key, from: database, orQuery: { tx in
            try Self.view(tx, try WorkspaceAccess.find(tx, workspaceId: workspaceId, userId: userId), id: id)
        })
    }

    /// The channel as `access` sees it. A private channel does not exist for anyone outside it,
    /// except, with `ownerSeesPrivate`, for the workspace's owner (who may delete it).
    static func view(_ tx: any StoreTransaction, _ access: WorkspaceAccess, id: Int64,
                     ownerSeesPrivate: Bool = false) throws -> View {
        guard let found = try tx.rooms.channel(id: id, workspaceId: access.workspaceId, viewer: access.userId)
        else { throw AppError.notFound }
        let (room, count, isMember) = (found.room, found.memberCount, found.isMember)
        if room.isPrivate, !isMember, !(ownerSeesPrivate && access.isOwner) { throw AppError.notFound }
        return View(room: room, isMember: isMember, memberCount: count, access: access)
    }

    /// A private channel as its workspace's owner may handle it from the workspace settings
    /// (delete it) without being in it; a 404 for anyone else.
    func privateChannelForOwner(_ access: WorkspaceAccess, id: Int64) async throws -> View {
        guard access.isOwner else { throw AppError.notFound }
        return try await database.queryOffLoop { tx in try Self.view(tx, access, id: id, ownerSeesPrivate: true) }
    }

    /// The members of a channel, by nickname.
    /// How many messages the channel holds (what deleting it deletes).
    func messageCount(of roomId: Int64) async throws -> Int {
        try await database.queryOffLoop { tx in try tx.rooms.messageCount(roomId: roomId) }
    }

    func members(of roomId: Int64) async throws -> [(id: Int64, nickname: String)] {
        try await database.queryOffLoop { tx in try tx.rooms.memberNames(roomId: roomId) }
    }

    /// Creates a channel; its creator owns it and is its first member. A public one is
    /// announced to the workspace; a private one only to its creator.
    func create(_ access: WorkspaceAccess, name rawName: String, description rawDescription: String,
                visibility: Room.Visibility = .public) async throws -> Room {
        let (name, description) = try NameRules.cleaned(name: rawName, description: rawDescription,
                                                        allowed: NameRules.channelName)
        let now = clock.now(), membership = self.membership
        do {
            return try await database.write { tx in
                try Self.checkNameFree(tx, access.workspaceId, name, except: nil)
                let room = try tx.rooms.insert(Room(id: nil, workspaceId: access.workspaceId, kind: .channel, name: name,
                                                    nameKey: NameRules.key(name), description: description, ownerId: access.userId,
                                                    isDefault: false, dmKey: nil, createdAt: now, updatedAt: now,
                                                    visibility: visibility))
                try tx.publish(OutgoingEvent(.roomCreated, to: .room(room.id!), payload: room.payload,
                                             membership: .added(room: room.id!, users: [])))
                if !room.isPrivate {
                    try tx.publish(OutgoingEvent(.channelCreated, to: .room(try access.workspace.defaultRoom(tx).id!),
                                                 payload: room.payload))
                }
                try membership.add(tx, room: room, users: [access.userId], at: now)
                try tx.audit.record(workspaceId: access.workspaceId, actor: access.userId, action: "channel.create",
                                    targetRoom: room.id!, detail: room.isPrivate ? "\(name) (private)" : name, at: now)
                return room
            }
        } catch is DuplicateKey {
            throw FormProblems([.name: "error_channel_name_taken"])
        }
    }

    func join(_ view: View) async throws {
        guard !view.isMember else { return }
        let now = clock.now(), membership = self.membership
        try await database.write { tx in
            try membership.add(tx, room: view.room, users: [view.access.userId], at: now)
            try tx.audit.record(workspaceId: view.room.workspaceId, actor: view.access.userId, action: "channel.join",
                                targetRoom: view.room.id!, detail: view.room.name, at: now)
        }
    }

    /// Leaves a channel: never the default one, and its owner hands it over first.
    func leave(_ view: View) async throws {
        guard view.isMember else { throw AppError.notFound }
        if view.room.isDefault { throw AppError.conflict("error_default_channel_leave") }
        if view.room.ownerId == view.access.userId { throw AppError.conflict("error_channel_owner_leave") }
        let now = clock.now(), membership = self.membership
        try await database.write { tx in
            try membership.remove(tx, room: view.room, users: [view.access.userId])
            try tx.audit.record(workspaceId: view.room.workspaceId, actor: view.access.userId, action: "channel.leave",
                                targetRoom: view.room.id!, detail: view.room.name, at: now)
        }
    }

    /// Renames or re-describes a channel (its owner or the workspace owner).
    func update(_ view: View, name rawName: String, description rawDescription: String,
                cover: PreparedFile? = nil) async throws {
        try view.requireManager()
        let (name, description) = try NameRules.cleaned(name: rawName, description: rawDescription,
                                                        allowed: NameRules.channelName)
        let now = clock.now()
        do {
            try await database.write { tx in
                try Self.checkNameFree(tx, view.room.workspaceId, name, except: view.room.id)
                var room = view.room
                room.name = name
                room.nameKey = NameRules.key(name)
                room.description = description
                room.updatedAt = now
                if let cover {
                    room.coverFileId = try tx.files.insert([cover], uploader: view.access.userId, at: now)[0].id
                }
                try tx.rooms.update(room)
                try tx.publish(OutgoingEvent(.roomUpdated, to: .room(room.id!), payload: room.payload))
                try tx.audit.record(workspaceId: room.workspaceId, actor: view.access.userId, action: "channel.edit",
                                    targetRoom: room.id!,
                                    detail: view.room.name == name ? name : "\(view.room.name) → \(name)", at: now)
            }
        } catch is DuplicateKey {
            throw FormProblems([.name: "error_channel_name_taken"])
        }
    }

    /// Deletes a channel with its memberships (and, later, its messages and files). The default
    /// channel cannot be deleted: it goes with the workspace.
    func delete(_ view: View) async throws {
        try view.requireManager()
        if view.room.isDefault { throw AppError.conflict("error_default_channel_delete") }
        let now = clock.now()
        try await database.write { tx in
            try tx.publish(OutgoingEvent(.roomDeleted, to: .room(view.room.id!), payload: view.room.payload,
                                         membership: .roomsDeleted(rooms: [view.room.id!])))
            // The workspace hears of a public channel going; a private one was never theirs to know.
            if !view.room.isPrivate {
                try tx.publish(OutgoingEvent(.roomDeleted, to: .room(try view.access.workspace.defaultRoom(tx).id!),
                                             payload: view.room.payload))
            }
            // Its messages' events go with it.
            try tx.rooms.delete(view.room)
            try tx.audit.record(workspaceId: view.room.workspaceId, actor: view.access.userId, action: "channel.delete",
                                targetRoom: view.room.id!, detail: view.room.name, at: now)
        }
    }

    /// Adds someone from the workspace to the channel (any member of it may). Adding someone
    /// already in it changes nothing.
    func addMember(_ view: View, userId: Int64) async throws {
        guard view.isMember else { throw AppError.forbidden("error_channel_members_only") }
        let now = clock.now(), membership = self.membership
        try await database.write { tx in
            guard try tx.workspaces.isMember(workspaceId: view.room.workspaceId, userId: userId) else {
                throw AppError.conflict("error_not_workspace_member")
            }
            guard try !tx.rooms.isMember(roomId: view.room.id!, userId: userId) else { return }
            try membership.add(tx, room: view.room, users: [userId], at: now)
            try tx.audit.record(workspaceId: view.room.workspaceId, actor: view.access.userId, action: "channel.add_member",
                                targetUser: userId, targetRoom: view.room.id!, detail: view.room.name, at: now)
        }
    }

    /// Makes the channel public or private (its owner; never the default channel). Going
    /// private keeps exactly the people in it now; going public opens its whole history.
    func setVisibility(_ view: View, _ visibility: Room.Visibility) async throws {
        guard view.room.ownerId == view.access.userId else { throw AppError.forbidden("error_channel_owner_only") }
        if view.room.isDefault { throw AppError.conflict("error_default_channel_private") }
        guard view.room.visibility != visibility else { return }
        let now = clock.now()
        try await database.write { tx in
            var room = view.room
            room.visibility = visibility
            room.updatedAt = now
            try tx.rooms.update(room)
            try tx.publish(OutgoingEvent(.roomUpdated, to: .room(room.id!), payload: room.payload))
            if visibility == .public {
                // Now the workspace's to find, like a new channel.
                try tx.publish(OutgoingEvent(.channelCreated, to: .room(try view.access.workspace.defaultRoom(tx).id!),
                                             payload: room.payload))
            }
            try tx.audit.record(workspaceId: room.workspaceId, actor: view.access.userId,
                                action: visibility == .private ? "channel.make_private" : "channel.make_public",
                                targetRoom: room.id!, detail: room.name, at: now)
        }
    }

    /// Archives the channel (read-only, out of unread counts, still readable and searchable) or
    /// brings it back; its owner or the workspace owner, never the default channel. Archiving
    /// reads it off for everyone: nothing new can arrive in it to count.
    func setArchived(_ view: View, _ archived: Bool) async throws {
        try view.requireManager()
        if view.room.isDefault { throw AppError.conflict("error_default_channel_archive") }
        guard view.room.isArchived != archived else { return }
        let now = clock.now()
        try await database.write { tx in
            var room = view.room
            room.archivedAt = archived ? now : nil
            room.updatedAt = now
            try tx.rooms.update(room)
            if archived {
                try tx.readMarks.markAllRead(roomId: room.id!)
            }
            try tx.publish(OutgoingEvent(.roomUpdated, to: .room(room.id!), payload: room.payload))
            try tx.audit.record(workspaceId: room.workspaceId, actor: view.access.userId,
                                action: archived ? "channel.archive" : "channel.unarchive",
                                targetRoom: room.id!, detail: room.name, at: now)
        }
    }

    /// Hands the channel to one of its members. The default channel moves only with the workspace.
    func transfer(_ view: View, to newOwnerId: Int64) async throws {
        try view.requireManager()
        if view.room.isDefault { throw AppError.conflict("error_default_channel_transfer") }
        let now = clock.now()
        try await database.write { tx in
            guard try tx.rooms.isMember(roomId: view.room.id!, userId: newOwnerId) else {
                throw AppError.conflict("error_transfer_not_channel_member")
            }
            var room = view.room
            room.ownerId = newOwnerId
            room.updatedAt = now
            try tx.rooms.update(room)
            try tx.publish(OutgoingEvent(.roomUpdated, to: .room(room.id!), payload: room.payload))
            try tx.audit.record(workspaceId: room.workspaceId, actor: view.access.userId, action: "channel.transfer",
                                targetUser: newOwnerId, targetRoom: room.id!, detail: room.name, at: now)
        }
    }

    private static func checkNameFree(_ tx: any StoreTransaction, _ workspaceId: Int64, _ name: String, except: Int64?) throws {
        if try tx.rooms.isChannelNameTaken(workspaceId: workspaceId, nameKey: NameRules.key(name), except: except) {
            throw FormProblems([.name: "error_channel_name_taken"])
        }
    }
}
