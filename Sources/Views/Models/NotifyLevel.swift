/// How much a room tells a member by desktop notification: every message, only mentions and
/// DMs, or nothing. Unread badges and bold cover every room that is not muted; a muted room
/// shows a dot instead of its count and is left out of the tab title's total.
public enum NotifyLevel: String, Sendable, CaseIterable {
    case all, mentions, mute

    /// The level a person has for rooms they did not set, until they choose one.
    public static let standard = NotifyLevel.mentions

    /// The strings key of its name ("All messages").
    public var labelKey: String { "notify_\(rawValue)" }
}

/// One option of a menu: a notification level, or how long a custom status lasts.
public struct NotifyChoice: Sendable, Hashable {
    /// What the form posts as `level`: a level, or `default` for the person's default.
    public var value: String
    public var label: String
    public var isSelected: Bool

    public init(value: String, label: String, isSelected: Bool) {
        (self.value, self.label, self.isSelected) = (value, label, isSelected)
    }

    /// The options for a room: the person's default (named with its level), then each level.
    public static func forRoom(own: NotifyLevel?, standard: NotifyLevel, strings: Strings) -> [NotifyChoice] {
        [NotifyChoice(value: "default", label: strings.format("notify_default", strings[standard.labelKey]), isSelected: own == nil)]
            + NotifyLevel.allCases.map { NotifyChoice(value: $0.rawValue, label: strings[$0.labelKey], isSelected: own == $0) }
    }

    /// The options for the person's default.
    public static func forDefault(_ current: NotifyLevel, strings: Strings) -> [NotifyChoice] {
        NotifyLevel.allCases.map { NotifyChoice(value: $0.rawValue, label: strings[$0.labelKey], isSelected: current == $0) }
    }
}
