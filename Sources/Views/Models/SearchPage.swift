/// Search results in three sections: channels, members and messages.
public struct SearchPage: Sendable {
    public var workspaceId: Int64
    public var query: String
    public var hasQuery: Bool
    public var channels: [SearchChannelRow]
    public var members: [SearchMemberRow]
    public var messages: [SearchMessageRow]
    public var hasChannels: Bool
    public var hasMembers: Bool
    public var hasMessages: Bool
    public var moreChannelsURL: String?
    public var moreMembersURL: String?
    public var moreMessagesURL: String?

    public init(workspaceId: Int64, query: String, channels: [SearchChannelRow], members: [SearchMemberRow],
                messages: [SearchMessageRow], moreChannelsURL: String?, moreMembersURL: String?, moreMessagesURL: String?) {
        self.workspaceId = workspaceId
        self.query = query
        self.hasQuery = !query.isEmpty
        self.channels = channels
        self.members = members
        self.messages = messages
        self.hasChannels = !channels.isEmpty
        self.hasMembers = !members.isEmpty
        self.hasMessages = !messages.isEmpty
        self.moreChannelsURL = moreChannelsURL
        self.moreMembersURL = moreMembersURL
        self.moreMessagesURL = moreMessagesURL
    }
}

public struct SearchChannelRow: Sendable {
    public var name: String
    public var description: String
    public var url: String

    public init(name: String, description: String, url: String) {
        self.name = name
        self.description = description
        self.url = url
    }
}

public struct SearchMemberRow: Sendable {
    public var nickname: String
    public var email: String
    public var url: String

    public init(nickname: String, email: String, url: String) {
        self.nickname = nickname
        self.email = email
        self.url = url
    }
}

public struct SearchMessageRow: Sendable {
    public var roomName: String
    public var author: String
    public var timestamp: String
    public var timeText: String
    /// The excerpt, escaped, with the matches in `<mark>` (rendered by us).
    public var snippetHtml: String
    public var url: String

    public init(roomName: String, author: String, timestamp: String, timeText: String, snippetHtml: String, url: String) {
        self.roomName = roomName
        self.author = author
        self.timestamp = timestamp
        self.timeText = timeText
        self.snippetHtml = snippetHtml
        self.url = url
    }
}
