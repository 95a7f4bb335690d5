import Hummingbird
import Views

/// How a kind of room is addressed: a channel by its id (`/w/{wid}/c/{cid}`), a DM by the other
/// person (`/w/{wid}/dm/{uid}`), a group conversation by its id (`/w/{wid}/g/{rid}`). Each has
/// the same routes under its page, so one handler per route serves all three.
enum RoomAddress: CaseIterable, Sendable {
    case channel, directMessages, group

    var page: Route<Int64, Int64> {
        switch self {
        case .channel: Paths.channel
        case .directMessages: Paths.directMessages
        case .group: Paths.group
        }
    }

    var messages: Route<Int64, Int64> {
        switch self {
        case .channel: Paths.channelMessages
        case .directMessages: Paths.directMessagePost
        case .group: Paths.groupMessages
        }
    }

    var read: Route<Int64, Int64> {
        switch self {
        case .channel: Paths.channelRead
        case .directMessages: Paths.directMessagesRead
        case .group: Paths.groupRead
        }
    }

    var notify: Route<Int64, Int64> {
        switch self {
        case .channel: Paths.channelNotify
        case .directMessages: Paths.directMessagesNotify
        case .group: Paths.groupNotify
        }
    }

    var pins: Route<Int64, Int64> {
        switch self {
        case .channel: Paths.channelPins
        case .directMessages: Paths.directMessagePins
        case .group: Paths.groupPins
        }
    }

    var typing: Route<Int64, Int64> {
        switch self {
        case .channel: Paths.channelTyping
        case .directMessages: Paths.directMessageTyping
        case .group: Paths.groupTyping
        }
    }
}

/// A room as its routes see it, resolved through the viewer's membership.
struct ScopedRoom: Sendable {
    let access: WorkspaceAccess
    /// Nil for a DM before its first message (made when that message is accepted).
    let room: Room?
    let address: RoomAddress
    let path: String
    let composerAction: String
    /// Where reading is reported; nil while the room does not exist yet and for someone who
    /// has not joined the channel.
    let readURL: String?
    let title: String
    /// Whether the viewer is in the room (a workspace member may read a public channel
    /// without joining it).
    let isMember: Bool
    let memberCount: Int
    let settingsURL: String?
    let joinURL: String?
    /// The room's pinned messages.
    let pinsPath: String
    /// Where the viewer sets how the room notifies them.
    let notifyPath: String
    /// Where the viewer's typing is told.
    let typingPath: String
    /// A DM's other person (the viewer themself for their notes).
    var personId: Int64? = nil
    /// A group conversation, with its members.
    var group: GroupRooms.View? = nil

    var isChannel: Bool { address == .channel }

    /// The room of a route that acts in a room the viewer is in: a 404 for a channel they have
    /// not joined; nil for a DM not started yet.
    func joined() throws -> Room? {
        guard isMember else { throw AppError.notFound }
        return room
    }
}

/// Resolves the room of a request from its address (Campfire's `RoomScoped`): the workspace
/// through the viewer's membership, then the channel they can see, the DM with a teammate, or
/// the group conversation they are in. Anything else is a 404.
struct RoomScope: Sendable {
    let workspaces: WorkspaceService
    let channels: ChannelService
    let directRooms: DirectRooms
    let groups: GroupRooms

    /// The room `route` (one of `address`'s) names in `context`'s path.
    func room(_ address: RoomAddress, _ route: Route<Int64, Int64>, _ context: SignedInContext) async throws -> ScopedRoom {
        let (wid, id) = try route.values(in: context.parameters)
        switch address {
        case .channel:
            let view = try await channels.channel(workspaceId: wid, userId: context.userId, id: id)
            let cid = view.room.id!
            return ScopedRoom(access: view.access, room: view.room, address: address, path: Paths.channel(wid, cid),
                              composerAction: Paths.channelMessages(wid, cid),
                              readURL: view.isMember ? Paths.channelRead(wid, cid) : nil, title: view.room.name,
                              isMember: view.isMember, memberCount: view.memberCount, settingsURL: Paths.channelSettings(wid, cid),
                              joinURL: Paths.joinChannel(wid, cid), pinsPath: Paths.channelPins(wid, cid),
                              notifyPath: Paths.channelNotify(wid, cid), typingPath: Paths.channelTyping(wid, cid))
        case .directMessages:
            let access = try await workspaces.access(workspaceId: wid, userId: context.userId)
            let partner = try await directRooms.partner(access, userId: id)
            let room = try await directRooms.existing(access, with: partner.id!)
            let title = partner.id == context.userId ? "\(partner.nickname) \(context.strings["dm_self_suffix"])" : partner.nickname
            let uid = partner.id!
            return ScopedRoom(access: access, room: room, address: address, path: Paths.directMessages(wid, uid),
                              composerAction: Paths.directMessagePost(wid, uid),
                              readURL: room == nil ? nil : Paths.directMessagesRead(wid, uid), title: title, isMember: true,
                              memberCount: 2, settingsURL: nil, joinURL: nil, pinsPath: Paths.directMessagePins(wid, uid),
                              notifyPath: Paths.directMessagesNotify(wid, uid), typingPath: Paths.directMessageTyping(wid, uid),
                              personId: uid)
        case .group:
            let access = try await workspaces.access(workspaceId: wid, userId: context.userId)
            let view = try await groups.view(access, id: id)
            let rid = view.room.id!
            return ScopedRoom(access: access, room: view.room, address: address, path: Paths.group(wid, rid),
                              composerAction: Paths.groupMessages(wid, rid), readURL: Paths.groupRead(wid, rid), title: view.title,
                              isMember: true, memberCount: view.members.count, settingsURL: nil, joinURL: nil,
                              pinsPath: Paths.groupPins(wid, rid), notifyPath: Paths.groupNotify(wid, rid),
                              typingPath: Paths.groupTyping(wid, rid), group: view)
        }
    }
}

extension RouterGroup where Context == SignedInContext {
    /// Registers `handler` for `route(address)` of every kind of room, with the room resolved.
    func onEveryRoom(_ method: HTTPRequest.Method, _ route: @escaping @Sendable (RoomAddress) -> Route<Int64, Int64>,
                     scope: RoomScope,
                     _ handler: @escaping @Sendable (ScopedRoom, Request, SignedInContext) async throws -> Response) {
        for address in RoomAddress.allCases {
            let path = route(address)
            on(path.routerPath, method: method) { (request: Request, context: SignedInContext) -> Response in
                try await handler(try await scope.room(address, path, context), request, context)
            }
        }
    }
}
