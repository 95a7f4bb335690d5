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
    /// Files whose names match, with where they were shared.
    public var files: [SearchFileRow]
    public var hasFiles: Bool
    /// Nothing found in any section: one line says so instead of four empty boxes.
    public var isEmpty: Bool

    public init(workspaceId: Int64, query: String, channels: [SearchChannelRow], members: [SearchMemberRow],
                messages: [SearchMessageRow], files: [SearchFileRow] = [], moreChannelsURL: String?, moreMembersURL: String?,
                moreMessagesURL: String?) {
        self.files = files
        self.hasFiles = !files.isEmpty
        self.isEmpty = channels.isEmpty && members.isEmpty && messages.isEmpty && files.isEmpty
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

/// A file found by its name: the message it came in, and a link to it there.
public struct SearchFileRow: Sendable {
    public var name: String
    public var sizeText: String
    public var message: SearchMessageRow

    public init(name: String, sizeText: String, message: SearchMessageRow) {
        (self.name, self.sizeText, self.message) = (name, sizeText, message)
    }
}

public struct SearchMessageRow: Sendable {
    /// Where it was written: `#channel`, or for a direct conversation the other person(s).
    public var roomName: String
    /// Who wrote it; nil where the room's name says it already (a DM's other person).
    public var author: String?
    public var timestamp: String
    public var timeText: String
    /// The excerpt, escaped, with the matches in `<mark>` (rendered by us).
    public var snippetHtml: String
    public var url: String

    public init(roomName: String, author: String?, timestamp: String, timeText: String, snippetHtml: String, url: String) {
        self.roomName = roomName
        self.author = author
        self.timestamp = timestamp
        self.timeText = timeText
        self.snippetHtml = snippetHtml
        self.url = url
    }
}
