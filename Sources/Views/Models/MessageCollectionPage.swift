/// A page listing messages gathered from a person's rooms: their Mentions, their Saved
/// messages, a room's pinned messages. Each links to the message in its room; a list can offer
/// one form per message (Saved: "Remove", pins: "Unpin").
public struct MessageCollectionPage: Sendable {
    public var heading: String
    /// The list's id, for scripts and tests (`mention-list`, `saved-list`, `pin-list`).
    public var listId: String
    public var emptyText: String
    public var items: [CollectedMessageItem]
    public var hasItems: Bool
    /// The label of each item's form, when the list has one.
    public var removeLabel: String?
    /// Where to go back to (a room's pins link back to the room).
    public var backURL: String?
    public var backLabel: String?
    /// The words of each item's link (default: go to the message).
    public var openLabel: String?

    public init(heading: String, listId: String, emptyText: String, items: [CollectedMessageItem]) {
        (self.heading, self.listId, self.emptyText, self.items) = (heading, listId, emptyText, items)
        hasItems = !items.isEmpty
    }
}

/// One message of a collection: where, who, when, what it says (its viewer-neutral HTML), its
/// files by name, and the way to it in its room.
public struct CollectedMessageItem: Sendable {
    public var roomLabel: String
    public var roomURL: String
    public var author: String
    public var timestamp: String
    public var timeText: String
    public var bodyHtml: String
    public var fileNames: [String]
    public var url: String
    /// Where the item's form posts (Saved: unsave; pins: unpin).
    public var removeURL: String?
    /// A line under the message (a followed thread: its replies, how many are new), and
    /// whether it asks to be read.
    public var detail: String?
    public var isUnread = false

    public init(roomLabel: String, roomURL: String, author: String, timestamp: String, timeText: String, bodyHtml: String,
                fileNames: [String], url: String) {
        self.roomLabel = roomLabel
        self.roomURL = roomURL
        self.author = author
        self.timestamp = timestamp
        self.timeText = timeText
        self.bodyHtml = bodyHtml
        self.fileNames = fileNames
        self.url = url
    }
}
