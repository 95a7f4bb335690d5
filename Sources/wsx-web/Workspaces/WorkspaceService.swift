import Foundation
import GRDB

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
    private var membership: RoomMembership { RoomMembership(outbox: database.outbox) }

    func access(workspaceId: Int64, userId: Int64) async throws -> WorkspaceAccess {
        try await accesses.value(for: AccessKey(workspaceId: workspaceId, userId: userId), from: database) { db in
            try WorkspaceAccess.find(db, workspaceId: workspaceId, userId: userId)
        }
    }

    /// The workspaces a person belongs to, by name.
    func workspaces(of userId: Int64) async throws -> [Workspace] {
        try database.read { db in
            try Workspace.fetchAll(db, sql: """
                SELECT workspaces.* FROM workspaces JOIN workspace_members ON workspace_members.workspace_id = workspaces.id
                WHERE workspace_members.user_id = ? ORDER BY workspaces.name_key, workspaces.id
                """, arguments: [userId])
        }
    }

    /// The workspaces both people belong to, by name: what lets one see the other's profile.
    func sharedWorkspaces(of viewerId: Int64, with otherId: Int64) async throws -> [Workspace] {
        try database.read { db in
            try Workspace.fetchAll(db, sql: """
                SELECT workspaces.* FROM workspaces
                JOIN workspace_members AS viewer ON viewer.workspace_id = workspaces.id AND viewer.user_id = ?
                JOIN workspace_members AS other ON other.workspace_id = workspaces.id AND other.user_id = ?
                ORDER BY workspaces.name_key, workspaces.id
                """, arguments: [viewerId, otherId])
        }
    }

    /// Creates a workspace owned by `ownerId`, with its default channel, paying `price` coins.
    /// Throws `FormProblems` for bad names and `CoinError.insufficient` when the coins do not
    /// suffice; either way nothing is created.
    func create(ownerId: Int64, name rawName: String, description rawDescription: String,
                defaultChannelName: String) async throws -> Workspace {
        let (name, description) = try NameRules.cleaned(name: rawName, description: rawDescription,
                                                        allowed: NameRules.workspaceName)
        let now = clock.now(), price = self.price, ledger = self.ledger, membership = self.membership
        do {
            return try await database.writer.write { db in
                if try Workspace.filter(Workspace.CodingKeys.ownerId == ownerId && Workspace.CodingKeys.nameKey == NameRules.key(name))
                    .fetchCount(db) > 0 {
                    throw FormProblems([.name: "error_workspace_name_taken"])
                }
                let workspace = try Workspace(id: nil, name: name, nameKey: NameRules.key(name), description: description,
                                              ownerId: ownerId, createdAt: now, updatedAt: now).inserted(db)
                if price > 0 {
                    try ledger.change(db, userId: ownerId, by: -price, reason: "workspace_created",
                                      reference: "workspace:\(workspace.id!)", at: now)
                }
                try WorkspaceMember(workspaceId: workspace.id!, userId: ownerId, role: .owner, joinedAt: now).insert(db)
                let room = try Room(id: nil, workspaceId: workspace.id!, kind: .channel, name: defaultChannelName,
                                    nameKey: NameRules.key(defaultChannelName), description: "", ownerId: ownerId,
                                    isDefault: true, dmKey: nil, createdAt: now, updatedAt: now).inserted(db)
                try database.outbox.publish(OutgoingEvent(.roomCreated, to: .room(room.id!), payload: room.payload,
                                                          membership: .added(room: room.id!, users: [])), in: db)
                try membership.add(db, room: room, users: [ownerId], at: now)
                try AuditTrail.record(db, workspaceId: workspace.id!, actor: ownerId, action: "workspace.create",
                                      detail: name, at: now)
                return workspace
            }
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
            throw FormProblems([.name: "error_workspace_name_taken"])
        }
    }

    /// Renames or re-describes the workspace (owner).
    func update(_ access: WorkspaceAccess, name rawName: String, description rawDescription: String,
                cover: PreparedFile? = nil) async throws {
        try access.requireOwner()
        let (name, description) = try NameRules.cleaned(name: rawName, description: rawDescription,
                                                        allowed: NameRules.workspaceName)
        let now = clock.now(), outbox = database.outbox
        do {
            try await database.writer.write { db in
                guard var workspace = try Workspace.fetchOne(db, key: access.workspaceId) else { throw AppError.notFound }
                if try Workspace.filter(Workspace.CodingKeys.ownerId == workspace.ownerId
                                        && Workspace.CodingKeys.nameKey == NameRules.key(name)
                                        && Workspace.CodingKeys.id != workspace.id!).fetchCount(db) > 0 {
                    throw FormProblems([.name: "error_workspace_name_taken"])
                }
                let before = workspace.name
                workspace.name = name
                workspace.nameKey = NameRules.key(name)
                workspace.description = description
                workspace.updatedAt = now
                if let cover {
                    workspace.coverFileId = try FileService.insert(db, [cover], uploader: access.userId, at: now)[0].id
                }
                try workspace.update(db)
                try outbox.publish(OutgoingEvent(.workspaceUpdated, to: .room(try workspace.defaultRoom(db).id!),
                                                 payload: workspace.payload), in: db)
                try AuditTrail.record(db, workspaceId: workspace.id!, actor: access.userId, action: "workspace.edit",
                                      detail: before == name ? name : "\(before) → \(name)", at: now)
            }
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
            throw FormProblems([.name: "error_workspace_name_taken"])
        }
    }

    /// What deleting the workspace would take away, for the confirmation page.
    func deletionSummary(_ access: WorkspaceAccess) async throws -> (channels: Int, members: Int, messages: Int) {
        try database.read { db in
            let channels = try Room.filter(Room.CodingKeys.workspaceId == access.workspaceId && Room.CodingKeys.kind == "channel")
                .fetchCount(db)
            let members = try WorkspaceMember.filter(WorkspaceMember.CodingKeys.workspaceId == access.workspaceId).fetchCount(db)
            let messages = try db.tableExists("messages")
                ? try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM messages JOIN rooms ON rooms.id = messages.room_id WHERE rooms.workspace_id = ?",
                                   arguments: [access.workspaceId]) ?? 0
                : 0
            return (channels, members, messages)
        }
    }

    /// Deletes the workspace with its rooms, memberships, invitations and log (owner).
    func delete(_ access: WorkspaceAccess) async throws {
        try access.requireOwner()
        let outbox = database.outbox
        try await database.writer.write { db in
            guard let workspace = try Workspace.fetchOne(db, key: access.workspaceId) else { throw AppError.notFound }
            let rooms = try Room.filter(Room.CodingKeys.workspaceId == workspace.id!).fetchAll(db)
            try outbox.publish(OutgoingEvent(.workspaceDeleted, to: .room(try workspace.defaultRoom(db).id!),
                                             payload: workspace.payload,
                                             membership: .roomsDeleted(rooms: rooms.compactMap(\.id))), in: db)
            // Rooms, members, invitations and the audit log go with it (ON DELETE CASCADE).
            try workspace.delete(db)
            try MessageEventScrub.roomsDeleted(db, rooms: rooms.compactMap(\.id))
        }
    }

    /// Leaves the workspace and all its rooms. The owner must hand the workspace over first,
    /// and a member must hand over the channels they own.
    func leave(_ access: WorkspaceAccess) async throws {
        if access.isOwner { throw AppError.conflict("error_owner_cannot_leave") }
        let now = clock.now()
        try await database.writer.write { db in
            let owned = try Room.filter(Room.CodingKeys.workspaceId == access.workspaceId && Room.CodingKeys.kind == "channel"
                                        && Room.CodingKeys.ownerId == access.userId).fetchCount(db)
            if owned > 0 { throw AppError.conflict("error_channel_owner_cannot_leave") }
            try removeFromWorkspace(db, workspace: access.workspace, userId: access.userId, at: now)
            try AuditTrail.record(db, workspaceId: access.workspaceId, actor: access.userId, action: "workspace.leave",
                                  targetUser: access.userId, at: now)
        }
    }

    /// Hands the workspace, and its default channel, to another member (owner).
    func transfer(_ access: WorkspaceAccess, to newOwnerId: Int64) async throws {
        try access.requireOwner()
        guard newOwnerId != access.userId else { throw AppError.conflict("error_transfer_to_self") }
        let now = clock.now(), outbox = database.outbox
        try await database.writer.write { db in
            guard let workspace = try Workspace.fetchOne(db, key: access.workspaceId) else { throw AppError.notFound }
            try Self.handOver(db, workspace, to: newOwnerId, actor: access.userId, at: now, outbox: outbox)
        }
    }

    /// Makes `newOwnerId` (a member) the workspace's owner and its owner a member, in the caller's
    /// transaction: by its owner, or by a server administrator when the owner was deactivated.
    static func handOver(_ db: Database, _ original: Workspace, to newOwnerId: Int64, actor: Int64, at now: Date,
                         outbox: EventOutbox) throws {
        var workspace = original
        guard try WorkspaceMember.fetchOne(db, key: ["workspace_id": workspace.id!, "user_id": newOwnerId]) != nil else {
            throw AppError.conflict("error_transfer_not_member")
        }
        if try Workspace.filter(Workspace.CodingKeys.ownerId == newOwnerId && Workspace.CodingKeys.nameKey == workspace.nameKey)
            .fetchCount(db) > 0 {
            throw AppError.conflict("error_transfer_name_clash")
        }
        try db.execute(sql: "UPDATE workspace_members SET role = 'member' WHERE workspace_id = ? AND user_id = ?",
                       arguments: [workspace.id!, workspace.ownerId])
        try db.execute(sql: "UPDATE workspace_members SET role = 'owner' WHERE workspace_id = ? AND user_id = ?",
                       arguments: [workspace.id!, newOwnerId])
        workspace.ownerId = newOwnerId
        workspace.updatedAt = now
        try workspace.update(db)
        var room = try workspace.defaultRoom(db)
        room.ownerId = newOwnerId
        room.updatedAt = now
        try room.update(db)
        try RoomMembership(outbox: outbox).add(db, room: room, users: [newOwnerId], at: now)
        try outbox.publish(OutgoingEvent(.workspaceUpdated, to: .room(room.id!), payload: workspace.payload), in: db)
        try AuditTrail.record(db, workspaceId: workspace.id!, actor: actor, action: "workspace.transfer",
                              targetUser: newOwnerId, at: now)
    }

    /// Takes `userId` out of the workspace and every room in it, telling the workspace and them.
    func removeFromWorkspace(_ db: Database, workspace: Workspace, userId: Int64, at now: Date) throws {
        try SQLiteMembershipStore(db: db, outbox: database.outbox).remove(workspace: workspace, userId: userId, at: now)
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
