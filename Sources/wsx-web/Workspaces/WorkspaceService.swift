import Foundation

/// Creating, editing, deleting, leaving and handing over workspaces. Every method is one
/// transaction: the change, its audit entry and its real-time events commit together.
struct WorkspaceService: Sendable {
    let database: AppDatabase
    let clock: WallClock
    /// Coins a new workspace costs (`--workspace-price`).
    let price: Int
    /// Memberships as last read: every page and post inside a workspace asks one, and a post
    /// changes none.
    private let accesses: VersionedCache<AccessKey, WorkspaceAccess>

    private struct AccessKey: Hashable, Sendable {
        let workspaceId: Int64, userId: Int64
    }

    init(database: AppDatabase, clock: WallClock, price: Int) {
        self.database = database
        self.clock = clock
        self.price = price
        accesses = VersionedCache("workspace accesses", of: database, clock: clock, capacity: 4096)
    }

    private var ledger: CoinLedger { CoinLedger(outbox: database.outbox) }
    private var membership: RoomMembership { RoomMembership() }

    func access(workspaceId: Int64, userId: Int64) async throws -> WorkspaceAccess {
        try await accesses.value(for: AccessKey(workspaceId: workspaceId, userId: userId), from: database, orQuery: { tx in
            try WorkspaceAccess.find(tx, workspaceId: workspaceId, userId: userId)
        })
    }

    /// The workspaces a person belongs to, by name.
    func workspaces(of userId: Int64) async throws -> [Workspace] {
        try await database.queryOffLoop { tx in try tx.workspaces.workspaces(of: userId) }
    }

    /// The workspaces both people belong to, by name: what lets one see the other's profile.
    func sharedWorkspaces(of viewerId: Int64, with otherId: Int64) async throws -> [Workspace] {
        try await database.queryOffLoop { tx in try tx.workspaces.sharedWorkspaces(of: viewerId, with: otherId) }
    }

    /// Creates a workspace owned by `ownerId`, with its default channel, paying `price` coins.
    /// Throws `FormProblems` for bad names and `CoinError.insufficient` when the coins do not
    /// suffice; either way nothing is created.
    func create(ownerId: Int64, name rawName: String, description rawDescription: String,
                defaultChannelName: String, cover: PreparedFile? = nil) async throws -> Workspace {
        let (name, description) = try NameRules.cleaned(name: rawName, description: rawDescription,
                                                        allowed: NameRules.workspaceName)
        let now = clock.now(), price = self.price, ledger = self.ledger, membership = self.membership
        do {
            return try await database.write { tx in
                if try tx.workspaces.isNameTaken(ownerId: ownerId, nameKey: NameRules.key(name), except: nil) {
                    throw FormProblems([.name: "error_workspace_name_taken"])
                }
                var made = Workspace(id: nil, name: name, nameKey: NameRules.key(name), description: description, ownerId: ownerId,
                                     createdAt: now, updatedAt: now)
                if let cover { made.coverFileId = try tx.files.insert([cover], uploader: ownerId, at: now)[0].id }
                let workspace = try tx.workspaces.insert(made)
                if price > 0 {
                    try ledger.change(tx, userId: ownerId, by: -price, reason: "workspace_created",
                                      reference: "workspace:\(workspace.id!)", at: now)
                }
                try tx.workspaces.addMember(workspaceId: workspace.id!, userId: ownerId, role: .owner, joinedAt: now)
                let room = try tx.rooms.insert(Room(id: nil, workspaceId: workspace.id!, kind: .channel, name: defaultChannelName,
                                                    nameKey: NameRules.key(defaultChannelName), description: "", ownerId: ownerId,
                                                    isDefault: true, dmKey: nil, createdAt: now, updatedAt: now))
                try tx.publish(OutgoingEvent(.roomCreated, to: .room(room.id!), payload: room.payload,
                                             membership: .added(room: room.id!, users: [])))
                try membership.add(tx, room: room, users: [ownerId], at: now)
                try tx.audit.record(workspaceId: workspace.id!, actor: ownerId, action: "workspace.create",
                                    detail: name, at: now)
                return workspace
            }
        } catch is DuplicateKey {
            throw FormProblems([.name: "error_workspace_name_taken"])
        }
    }

    /// Renames or re-describes the workspace (owner).
    func update(_ access: WorkspaceAccess, name rawName: String, description rawDescription: String,
                cover: PreparedFile? = nil) async throws {
        try access.requireOwner()
        let (name, description) = try NameRules.cleaned(name: rawName, description: rawDescription,
                                                        allowed: NameRules.workspaceName)
        let now = clock.now()
        do {
            try await database.write { tx in
                guard var workspace = try tx.workspaces.workspace(id: access.workspaceId) else { throw AppError.notFound }
                if try tx.workspaces.isNameTaken(ownerId: workspace.ownerId, nameKey: NameRules.key(name), except: workspace.id!) {
                    throw FormProblems([.name: "error_workspace_name_taken"])
                }
                let before = workspace.name
                workspace.name = name
                workspace.nameKey = NameRules.key(name)
                workspace.description = description
                workspace.updatedAt = now
                if let cover {
                    workspace.coverFileId = try tx.files.insert([cover], uploader: access.userId, at: now)[0].id
                }
                try tx.workspaces.update(workspace)
                try tx.publish(OutgoingEvent(.workspaceUpdated, to: .room(try workspace.defaultRoom(tx).id!),
                                             payload: workspace.payload))
                try tx.audit.record(workspaceId: workspace.id!, actor: access.userId, action: "workspace.edit",
                                    detail: before == name ? name : "\(before) → \(name)", at: now)
            }
        } catch is DuplicateKey {
            throw FormProblems([.name: "error_workspace_name_taken"])
        }
    }

    /// What deleting the workspace would take away, for the confirmation page.
    func deletionSummary(_ access: WorkspaceAccess) async throws -> (channels: Int, members: Int, messages: Int) {
        try await database.queryOffLoop { tx in try tx.workspaces.contents(workspaceId: access.workspaceId) }
    }

    /// Deletes the workspace with its rooms, memberships, invitations and log (owner).
    func delete(_ access: WorkspaceAccess) async throws {
        try access.requireOwner()
        try await database.write { tx in
            guard let workspace = try tx.workspaces.workspace(id: access.workspaceId) else { throw AppError.notFound }
            let rooms = try tx.rooms.rooms(workspaceId: workspace.id!)
            try tx.publish(OutgoingEvent(.workspaceDeleted, to: .room(try workspace.defaultRoom(tx).id!),
                                         payload: workspace.payload,
                                         membership: .roomsDeleted(rooms: rooms.compactMap(\.id))))
            // Rooms, members, invitations and the audit log go with it, and their messages' events.
            try tx.workspaces.delete(workspace, rooms: rooms.compactMap(\.id))
        }
    }

    /// Leaves the workspace and all its rooms. The owner must hand the workspace over first,
    /// and a member must hand over the channels they own.
    func leave(_ access: WorkspaceAccess) async throws {
        if access.isOwner { throw AppError.conflict("error_owner_cannot_leave") }
        let now = clock.now()
        try await database.write { tx in
            let owned = try tx.rooms.ownedChannelCount(workspaceId: access.workspaceId, userId: access.userId)
            if owned > 0 { throw AppError.conflict("error_channel_owner_cannot_leave") }
            try removeFromWorkspace(tx, workspace: access.workspace, userId: access.userId, at: now)
            try tx.audit.record(workspaceId: access.workspaceId, actor: access.userId, action: "workspace.leave",
                                targetUser: access.userId, at: now)
        }
    }

    /// Hands the workspace, and its default channel, to another member (owner).
    func transfer(_ access: WorkspaceAccess, to newOwnerId: Int64) async throws {
        try access.requireOwner()
        guard newOwnerId != access.userId else { throw AppError.conflict("error_transfer_to_self") }
        let now = clock.now(), membership = self.membership
        try await database.write { tx in
            guard let workspace = try tx.workspaces.workspace(id: access.workspaceId) else { throw AppError.notFound }
            try Self.handOver(tx, workspace, to: newOwnerId, actor: access.userId, at: now, membership: membership)
        }
    }

    /// Makes `newOwnerId` (a member) the workspace's owner and its owner a member, in the caller's
    /// transaction: by its owner, or by a server administrator when the owner was deactivated.
    static func handOver(_ tx: any StoreTransaction, _ original: Workspace, to newOwnerId: Int64, actor: Int64, at now: Date,
                         membership: RoomMembership) throws {
        var workspace = original
        guard try tx.workspaces.isMember(workspaceId: workspace.id!, userId: newOwnerId) else {
            throw AppError.conflict("error_transfer_not_member")
        }
        if try tx.workspaces.isNameTaken(ownerId: newOwnerId, nameKey: workspace.nameKey, except: nil) {
            throw AppError.conflict("error_transfer_name_clash")
        }
        try tx.workspaces.passOwnerRole(workspaceId: workspace.id!, from: workspace.ownerId, to: newOwnerId)
        workspace.ownerId = newOwnerId
        workspace.updatedAt = now
        try tx.workspaces.update(workspace)
        var room = try workspace.defaultRoom(tx)
        room.ownerId = newOwnerId
        room.updatedAt = now
        try tx.rooms.update(room)
        try membership.add(tx, room: room, users: [newOwnerId], at: now)
        try tx.publish(OutgoingEvent(.workspaceUpdated, to: .room(room.id!), payload: workspace.payload))
        try tx.audit.record(workspaceId: workspace.id!, actor: actor, action: "workspace.transfer",
                            targetUser: newOwnerId, at: now)
    }

    /// Takes `userId` out of the workspace and every room in it, telling the workspace and them.
    func removeFromWorkspace(_ tx: any StoreTransaction, workspace: Workspace, userId: Int64, at now: Date) throws {
        try tx.memberships.remove(workspace: workspace, userId: userId, at: now)
    }
}

extension String {
    /// Multi-line text as typed (descriptions): NFC, control characters other than newlines
    /// removed, surrounding whitespace trimmed.
    var cleanedText: String {
        String(String.UnicodeScalarView(nfc.unicodeScalars.filter { $0 == "\n" || !$0.isDisallowedInText }))
            .replacingOccurrences(of: "\r\n", with: "\n")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
