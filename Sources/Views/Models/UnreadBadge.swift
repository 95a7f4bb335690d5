/// What a list shows for a room's unread messages, by how the room notifies the person:
/// at `all` a number for every unread message; at `mentions` (the default) a number for
/// mentions, or for every message of a DM or group conversation, and the room's name bold for
/// other unread messages; at `mute` a number for mentions only, as Slack keeps them.
public struct UnreadBadge: Sendable, Equatable {
    /// The number shown; 0 shows none.
    public let count: Int
    /// Unread messages the number does not count: the name is shown bold.
    public let isBold: Bool

    public init(unread: Int, mentions: Int, level: NotifyLevel, isDirect: Bool) {
        switch level {
        case .all: count = unread
        case .mentions: count = isDirect ? unread : mentions
        case .mute: count = mentions
        }
        isBold = level != .mute && unread > 0
    }
}
