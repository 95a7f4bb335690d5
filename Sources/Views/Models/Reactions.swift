/// A message's reactions as one viewer sees them: each emoji a button that toggles theirs,
/// with its count, pressed when the viewer reacted with it.
public struct ReactionBar: Sendable {
    /// Where each button posts (`emoji` = its emoji).
    public var action: String
    public var chips: [ReactionChip]

    public init(action: String, chips: [ReactionChip]) {
        self.action = action
        self.chips = chips
    }
}

/// One emoji under a message.
public struct ReactionChip: Sendable {
    public var emoji: String
    public var count: Int
    /// The viewer reacted with it.
    public var pressed: Bool
    /// Who reacted, shown on hover and focus (`Public/reactions.js` writes it the same way).
    public var who: String
    /// What a screen reader says: the emoji, the count and who.
    public var label: String

    public init(emoji: String, userIds: [Int64], names: [String], viewer: Int64) {
        self.emoji = emoji
        count = userIds.count
        pressed = userIds.contains(viewer)
        who = Self.who(names)
        label = "\(emoji) \(count): \(who)"
    }

    /// The first twenty names, then how many more.
    public static func who(_ names: [String]) -> String {
        let shown = names.prefix(20).joined(separator: ", ")
        return names.count > 20 ? "\(shown) +\(names.count - 20)" : shown
    }
}

/// One emoji offered on the reaction page, with its name in the viewer's language.
public struct ReactionChoice: Sendable {
    public var emoji: String
    public var name: String
    public var pressed: Bool

    public init(emoji: String, name: String, pressed: Bool) {
        self.emoji = emoji
        self.name = name
        self.pressed = pressed
    }
}

/// `GET /w/{wid}/m/{mid}/reactions` without a script: the message, who reacted with what, and
/// the common reactions to toggle, or any other emoji typed in.
public struct ReactionsPage: Sendable {
    public var author: String
    public var snippet: String
    public var chips: [ReactionChip]
    public var choices: [ReactionChoice]
    public var action: String
    public var backURL: String
    public var error: String?
    public var hasReactions: Bool
    /// Pinning and saving the message, without a script: each form posts whichever of pin or
    /// unpin, save or unsave applies now.
    public var toggles: [MessageToggle] = []

    public init(author: String, snippet: String, chips: [ReactionChip], choices: [ReactionChoice], action: String,
                backURL: String, error: String? = nil) {
        self.author = author
        self.snippet = snippet
        self.chips = chips
        hasReactions = !chips.isEmpty
        self.choices = choices
        self.action = action
        self.backURL = backURL
        self.error = error
    }
}

/// A form with one button that turns something on a message on or off (pin, save).
public struct MessageToggle: Sendable {
    public var action: String
    public var label: String
    /// The button's class: `message-pin`, `message-save`.
    public var kind: String
    public var isOn: Bool

    public init(action: String, label: String, kind: String, isOn: Bool) {
        (self.action, self.label, self.kind, self.isOn) = (action, label, kind, isOn)
    }
}

/// The line above a message's reactions saying it is pinned (for everyone in the room) or
/// saved (by the viewer).
public struct MessageFlags: Sendable {
    public var pinned: Bool
    public var saved: Bool

    public init(pinned: Bool, saved: Bool) {
        (self.pinned, self.saved) = (pinned, saved)
    }
}
