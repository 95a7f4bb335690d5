/// `GET /w/{wid}/mentions`: the messages that mentioned the viewer (by name, or with
/// `@here`/`@channel`/`@all`), newest first, in rooms they are still in.
public struct MentionsPage: Sendable {
    public var items: [MentionItem]
    public var hasItems: Bool

    public init(items: [MentionItem]) {
        self.items = items
        hasItems = !items.isEmpty
    }
}

/// One mention: where, who, when, what the message says (its viewer-neutral HTML), and the
/// way to it in its room.
public struct MentionItem: Sendable {
    public var roomLabel: String
    public var roomURL: String
    public var author: String
    public var timestamp: String
    public var timeText: String
    public var bodyHtml: String
    public var url: String

    public init(roomLabel: String, roomURL: String, author: String, timestamp: String, timeText: String, bodyHtml: String,
                url: String) {
        self.roomLabel = roomLabel
        self.roomURL = roomURL
        self.author = author
        self.timestamp = timestamp
        self.timeText = timeText
        self.bodyHtml = bodyHtml
        self.url = url
    }
}
