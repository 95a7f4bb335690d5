import Foundation
import Hummingbird
import Uploads

/// `/v1`'s channels (`../shared/APP-API.md` §3.3), through the web's `ChannelService`: a private
/// channel does not exist for anyone outside it (`E13`).
struct ChannelsAPIController: Sendable {
    let access: APIAccess
    let channels: ChannelService
    let files: FileService

    func addRoutes(to v1: APIRoutes) {
        v1.get("workspaces/:workspace/channels", use: list)
        v1.get("workspaces/:workspace/my-channels", use: mine)
        v1.post("workspaces/:workspace/channels", use: create)
        v1.get("workspaces/:workspace/channels/:channel", use: detail)
        v1.put("workspaces/:workspace/channels/:channel", use: edit)
        v1.delete("workspaces/:workspace/channels/:channel", use: delete)
        v1.get("workspaces/:workspace/channels/:channel/exit", use: exit)
        v1.put("workspaces/:workspace/channels/:channel/transfer/ownership", use: transfer)
    }

    /// Every channel the caller may see: the public ones and the private ones they are in.
    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (_, membership) = try await access.workspace(request, context)
        return APIResponse.json(try await channels(of: membership, joinedOnly: false))
    }

    @Sendable func mine(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (_, membership) = try await access.workspace(request, context)
        return APIResponse.json(try await channels(of: membership, joinedOnly: true))
    }

    /// Makes a channel (multipart or JSON `name`, `description`, `image`); its maker owns it.
    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (caller, membership) = try await access.workspace(request, context)
        let form = try await APIForm.read(request, files: files, uploader: caller.id!, fileFields: ["image"])
        let cover = try await form.picture(files)
        let room = try await channels.create(membership, name: form.fields["name"] ?? "", description: form.fields["description"] ?? "")
        if let cover {
            let view = try await channels.channel(membership, id: room.id!)
            try await channels.update(view, name: room.name, description: room.description, cover: cover)
        }
        return APIResponse.json(try await present(try await channels.channel(membership, id: room.id!).room, membership))
    }

    /// The channel with its members.
    @Sendable func detail(_ request: Request, context: AppRequestContext) async throws -> Response {
        let view = try await channel(request, context)
        let workspaceId = view.access.workspaceId, roomId = view.room.id!, owner = view.access.workspace.ownerId
        let room = view.room
        @Sendable func members(_ tx: any StoreTransaction) throws -> [MembershipService.Member] {
            let ids = Set(try tx.rooms.memberIds(roomId: roomId))
            return try tx.memberships.members(workspaceId: workspaceId).filter { ids.contains($0.id) }
        }
        let shown = try await access.present({ wanted, tx in
            wanted.add(room)
            wanted.add(.users, owner)
            for member in try members(tx) { wanted.add(member) }
        }, { book, tx in
            var channel = try APIChannel(room, owner: owner, book: book)
            channel.members = try members(tx).map { try APIMember($0, book: book) }
            return channel
        })
        return APIResponse.json(shown)
    }

    /// Edits name, description and picture (its owner or the workspace's: `E14`); a form that
    /// changes nothing is `E12`.
    @Sendable func edit(_ request: Request, context: AppRequestContext) async throws -> Response {
        let view = try await channel(request, context)
        guard view.canManage else { throw APIError.ownerOnly }
        let form = try await APIForm.read(request, files: files, uploader: view.access.userId, fileFields: ["image"])
        let name = form.fields["name"] ?? view.room.name, description = form.fields["description"] ?? view.room.description
        if form.received.files.isEmpty, name.cleanedLine == view.room.name, description.cleanedLine == view.room.description {
            throw APIError.duplicate
        }
        let cover = try await form.picture(files)
        try await channels.update(view, name: name, description: description, cover: cover)
        return APIResponse.json(try await present(try await channels.channel(view.access, id: view.room.id!).room, view.access))
    }

    /// Deletes the channel (its owner or the workspace's: `E14`; the default channel: `E11`).
    @Sendable func delete(_ request: Request, context: AppRequestContext) async throws -> Response {
        let view = try await channel(request, context)
        guard view.canManage else { throw APIError.ownerOnly }
        guard !view.room.isDefault else { throw APIError.badRequest }
        let hashes = try await files.hashes(in: .room(view.room.id!))
        try await channels.delete(view)
        try await files.collectGarbage(candidates: hashes)
        return APIResponse.empty
    }

    /// Leaves the channel: never the default one (`E11`), and its owner hands it over first
    /// (`E15`). Answers the caller's channels.
    @Sendable func exit(_ request: Request, context: AppRequestContext) async throws -> Response {
        let view = try await channel(request, context)
        guard !view.room.isDefault else { throw APIError.badRequest }
        guard view.room.ownerId != view.access.userId else { throw APIError.ownerMustTransfer }
        if view.isMember { try await channels.leave(view) }
        return APIResponse.json(try await channels(of: view.access, joinedOnly: true))
    }

    /// Hands the channel to one of its members (`{owner_id}`); the default channel moves only
    /// with the workspace (`E11`).
    @Sendable func transfer(_ request: Request, context: AppRequestContext) async throws -> Response {
        let view = try await channel(request, context)
        guard view.canManage else { throw APIError.ownerOnly }
        guard !view.room.isDefault else { throw APIError.badRequest }
        let target = try await APIFields.read(request).required("owner_id")
        guard let newOwner = try await access.database.queryOffLoop({ tx in try tx.publicIds.id(of: target, in: .users) }) else {
            throw APIError.notFound
        }
        do {
            try await channels.transfer(view, to: newOwner)
        } catch let error as AppError where error.status == .conflict {
            throw APIError.badRequest
        }
        return APIResponse.json(try await present(try await channels.channel(view.access, id: view.room.id!).room, view.access))
    }

    /// The channels of the workspace `userId` may see (the public ones, and the private ones
    /// they are in), or only those they are in, oldest first.
    static func rooms(_ tx: any StoreTransaction, workspaceId: Int64, userId: Int64, joinedOnly: Bool) throws -> [Room] {
        let listed = try tx.rooms.channelListings(workspaceId: workspaceId, userId: userId).filter { !joinedOnly || $0.joined }
        let visible = Set(listed.map(\.id))
        return try tx.rooms.rooms(workspaceId: workspaceId).filter { $0.kind == .channel && visible.contains($0.id!) }
            .sorted { ($0.createdAt, $0.id!) < ($1.createdAt, $1.id!) }
    }

    /// The channel the path names (`{channel}`) in the caller's workspace.
    func channel(_ request: Request, _ context: AppRequestContext) async throws -> ChannelService.View {
        let (_, membership) = try await access.workspace(request, context)
        let id = try await access.row(context, "channel", in: .rooms)
        return try await channels.channel(membership, id: id)
    }

    private func present(_ room: Room, _ membership: WorkspaceAccess) async throws -> APIChannel {
        let owner = membership.workspace.ownerId
        return try await access.present({ wanted, _ in
            wanted.add(room)
            wanted.add(.users, owner)
        }, { book, _ in try APIChannel(room, owner: owner, book: book) })
    }

    /// The channels the caller may see (or is in), oldest first.
    private func channels(of membership: WorkspaceAccess, joinedOnly: Bool) async throws -> [APIChannel] {
        let workspaceId = membership.workspaceId, userId = membership.userId, owner = membership.workspace.ownerId
        @Sendable func read(_ tx: any StoreTransaction) throws -> [Room] {
            try Self.rooms(tx, workspaceId: workspaceId, userId: userId, joinedOnly: joinedOnly)
        }
        return try await access.present({ wanted, tx in
            wanted.add(.users, owner)
            for room in try read(tx) { wanted.add(room) }
        }, { book, tx in try read(tx).map { try APIChannel($0, owner: owner, book: book) } })
    }
}
