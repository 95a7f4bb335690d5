import Foundation

/// The kind of a real-time event; the SSE `event:` field. Features add their own types here,
/// and the page script (`Public/app.js`) lists every type it listens for (a test compares both).
struct EventType: RawRepresentable, Hashable, Sendable, CaseIterable {
    let rawValue: String

    init(rawValue: String) { self.rawValue = rawValue }

    /// The user's nickname or other profile fields changed (user audience).
    static let userUpdated = EventType(rawValue: "user.updated")
    /// Sessions of the user were ended (logout, password change): their streams close.
    static let sessionRevoked = EventType(rawValue: "session.revoked")
    /// People joined a room (room audience; the hub adds them before delivering).
    static let roomMemberAdded = EventType(rawValue: "room.member_added")
    /// People left or were removed from a room (delivered to them too, then they are dropped).
    static let roomMemberRemoved = EventType(rawValue: "room.member_removed")
    /// A room's name or description changed.
    static let roomUpdated = EventType(rawValue: "room.updated")
    /// A room was deleted (delivered to its members, then the room is forgotten).
    static let roomDeleted = EventType(rawValue: "room.deleted")
    /// A room was created; its first members are added (room audience). New channels are also
    /// announced to the workspace as `channel.created` on its default room.
    static let roomCreated = EventType(rawValue: "room.created")
    static let channelCreated = EventType(rawValue: "channel.created")
    /// A workspace's name, description or owner changed (default-room audience: every member).
    static let workspaceUpdated = EventType(rawValue: "workspace.updated")
    /// A workspace was deleted, with all its rooms (default-room audience).
    static let workspaceDeleted = EventType(rawValue: "workspace.deleted")
    /// Someone joined a workspace (default-room audience).
    static let workspaceMemberAdded = EventType(rawValue: "workspace.member_added")
    /// Someone left or was removed from a workspace: to the workspace, and to them (user audience).
    static let workspaceMemberRemoved = EventType(rawValue: "workspace.member_removed")
    /// The user's coin balance changed (user audience).
    static let coinsChanged = EventType(rawValue: "coins.changed")
    /// A message was posted, edited or deleted (room audience; viewer-neutral HTML).
    static let messageCreated = EventType(rawValue: "message.created")
    static let messageUpdated = EventType(rawValue: "message.updated")
    static let messageDeleted = EventType(rawValue: "message.deleted")
    /// A message's link preview was made (`html`) or removed (no `html`).
    static let messagePreview = EventType(rawValue: "message.preview")
    /// Someone set or cleared their custom status (the default room of each of their workspaces).
    static let statusChanged = EventType(rawValue: "status.changed")
    /// A thread's replies changed: the line under its root as it is now (room audience).
    static let threadUpdated = EventType(rawValue: "thread.updated")
    /// The user read a thread they follow, here or on another device (user audience).
    static let threadRead = EventType(rawValue: "thread.read")
    /// A message's reactions changed: all of them as they are now (room audience).
    static let reactionsChanged = EventType(rawValue: "reactions.changed")
    /// A message was pinned or unpinned: which, and the room's pinned count now (room audience).
    static let pinsChanged = EventType(rawValue: "pins.changed")
    /// The user saved a message or took it off their list (user audience).
    static let savedChanged = EventType(rawValue: "saved.changed")
    /// The user's read marker moved in a room (user audience: their other tabs and devices).
    static let roomRead = EventType(rawValue: "room.read")
    /// A member of a DM or group conversation read further (room audience: the read receipts).
    static let roomReceipts = EventType(rawValue: "room.receipts")
    /// How a room notifies the user changed, or their default did (user audience).
    static let notifyChanged = EventType(rawValue: "notify.changed")
    /// An invitation to a workspace arrived for the user, or was accepted or declined (user audience).
    static let invitationReceived = EventType(rawValue: "invitation.received")
    static let invitationResolved = EventType(rawValue: "invitation.resolved")
    /// Not stored, sent by the hub alone: someone's presence changed (people who share a
    /// workspace with them), someone is typing (the room's other members).
    static let presenceChanged = EventType(rawValue: "presence.changed")
    static let typing = EventType(rawValue: "typing")
    /// Not stored: tells a client its last event id is too old (or unknown) and it must reload.
    static let reset = EventType(rawValue: "reset")

    static let allCases: [EventType] = [
        .userUpdated, .sessionRevoked, .roomMemberAdded, .roomMemberRemoved, .roomUpdated, .roomDeleted, .roomCreated,
        .channelCreated, .workspaceUpdated, .workspaceDeleted, .workspaceMemberAdded, .workspaceMemberRemoved,
        .coinsChanged, .messageCreated, .messageUpdated, .messageDeleted, .messagePreview, .threadUpdated, .threadRead, .reactionsChanged, .statusChanged, .pinsChanged, .savedChanged, .roomRead, .roomReceipts, .notifyChanged, .invitationReceived,
        .invitationResolved, .presenceChanged, .typing, .reset,
    ]
}

/// Who receives an event: everyone in a room at that moment, or one user (on all their devices).
enum Audience: Sendable, Equatable {
    case room(Int64)
    case user(Int64)

    /// As stored: a room id or a user id, the other nil.
    var columns: (roomId: Int64?, userId: Int64?) {
        switch self {
        case .room(let id): (id, nil)
        case .user(let id): (nil, id)
        }
    }
}

/// A change of room membership an event carries, applied by the hub in memory so fan-out needs
/// no database query.
enum MembershipChange: Sendable, Equatable {
    case added(room: Int64, users: [Int64])
    case removed(room: Int64, users: [Int64])
    /// The rooms are gone (a channel, or a whole workspace's rooms): forget them after delivery.
    case roomsDeleted(rooms: [Int64])
}

/// An event about to be published: type, audience, JSON payload, and what it does to the hub's
/// in-memory state (membership, sessions whose streams must close).
struct OutgoingEvent: Sendable {
    let type: EventType
    let audience: Audience
    /// Compact JSON (never contains a raw newline).
    let payload: String
    var membership: MembershipChange?
    var closesSessions: [Int64] = []
    /// The message a message event is about: its text is scrubbed from the outbox when the
    /// message is edited or deleted (`MessageEventScrub`).
    var messageId: Int64?

    init(_ type: EventType, to audience: Audience, payload: some Encodable, membership: MembershipChange? = nil,
         closesSessions: [Int64] = []) {
        self.init(type, to: audience, json: Self.json(payload), membership: membership, closesSessions: closesSessions)
    }

    /// An event whose payload is already compact JSON (`CompactJSON`).
    init(_ type: EventType, to audience: Audience, json payload: String, membership: MembershipChange? = nil,
         closesSessions: [Int64] = []) {
        self.type = type
        self.audience = audience
        self.payload = payload
        self.membership = membership
        self.closesSessions = closesSessions
    }

    static func json(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding our own payload structs cannot fail.
        return String(decoding: (try? encoder.encode(value)) ?? Data("{}".utf8), as: UTF8.self)
    }
}

/// An event that committed, with its id.
struct CommittedEvent: Sendable {
    let id: Int64
    let event: OutgoingEvent
}

// MARK: Payloads of the account events

struct UserUpdatedPayload: Codable, Sendable {
    let userId: Int64
    let nickname: String
}

struct SessionRevokedPayload: Codable, Sendable {
    let userId: Int64
    /// Why: `logout`, `password_changed`, `password_reset`.
    let reason: String
}
