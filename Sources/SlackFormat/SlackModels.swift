import Foundation

// The records of a Slack export, as Slack's help ("How to read Slack data exports") and its API
// documentation describe them. Only the fields wsx reads or writes are here; every other field of
// a real export is ignored when read. Keys are snake_case in the files (`SlackJSON` converts).

/// A person (or bot) of `users.json` (`org_users.json` in an Enterprise Grid export).
public struct SlackUser: Codable, Sendable, Equatable {
    public var id: String
    public var teamId: String?
    public var name: String?
    public var deleted: Bool?
    public var isBot: Bool?
    public var realName: String?
    public var profile: Profile?

    public struct Profile: Codable, Sendable, Equatable {
        public var email: String?
        public var displayName: String?
        public var realName: String?
        public var botId: String?

        public init(email: String? = nil, displayName: String? = nil, realName: String? = nil, botId: String? = nil) {
            (self.email, self.displayName, self.realName, self.botId) = (email, displayName, realName, botId)
        }
    }

    public init(id: String, teamId: String? = nil, name: String?, deleted: Bool? = nil, isBot: Bool? = nil, realName: String? = nil,
                profile: Profile?) {
        (self.id, self.teamId, self.name, self.deleted, self.isBot) = (id, teamId, name, deleted, isBot)
        (self.realName, self.profile) = (realName, profile)
    }

    /// The name people know them by: the display name, else the real name, else the user name.
    public var shownName: String {
        for candidate in [profile?.displayName, profile?.realName, realName, name] {
            if let text = candidate?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty { return text }
        }
        return id
    }

    public var isDeleted: Bool { deleted == true }
    public var isBotAccount: Bool { isBot == true || profile?.botId != nil }
}

/// A conversation of `channels.json` (public), `groups.json` (private), `mpims.json` (group
/// direct messages) or `dms.json` (direct messages, which have no name).
public struct SlackConversation: Codable, Sendable, Equatable {
    public var id: String
    public var name: String?
    public var created: SlackNumber?
    public var creator: String?
    public var isArchived: Bool?
    public var isGeneral: Bool?
    public var members: [String]?
    public var topic: Text?
    public var purpose: Text?
    public var pins: [Pin]?

    /// A topic or purpose: its text (and who set it, when, which wsx does not keep).
    public struct Text: Codable, Sendable, Equatable {
        public var value: String

        public init(value: String) { self.value = value }
    }

    /// A pinned item: `id` is the message's `ts`.
    public struct Pin: Codable, Sendable, Equatable {
        public var id: String
        public var type: String?
        public var created: SlackNumber?
        public var user: String?

        public init(id: String, type: String? = "C", created: SlackNumber? = nil, user: String? = nil) {
            (self.id, self.type, self.created, self.user) = (id, type, created, user)
        }
    }

    public init(id: String, name: String?, created: SlackNumber?, creator: String? = nil, isArchived: Bool? = nil,
                isGeneral: Bool? = nil, members: [String]?, topic: Text? = nil, purpose: Text? = nil, pins: [Pin]? = nil) {
        (self.id, self.name, self.created, self.creator, self.isArchived) = (id, name, created, creator, isArchived)
        (self.isGeneral, self.members, self.topic, self.purpose, self.pins) = (isGeneral, members, topic, purpose, pins)
    }

    /// The folder of the conversation's day files: its name, or its id for a direct message.
    public var folder: String { name.flatMap { $0.isEmpty ? nil : $0 } ?? id }
}

/// One message of a day file.
public struct SlackMessage: Codable, Sendable, Equatable {
    public var type: String?
    public var subtype: String?
    public var ts: String
    public var user: String?
    public var botId: String?
    public var username: String?
    public var text: String?
    public var threadTs: String?
    public var parentUserId: String?
    public var replyCount: Int?
    public var replyUsers: [String]?
    public var latestReply: String?
    public var replies: [Reply]?
    public var edited: Edit?
    public var reactions: [Reaction]?
    public var files: [SlackFile]?
    /// The one file of a `file_share` message in exports made before files became a list.
    public var file: SlackFile?
    public var attachments: [Attachment]?
    public var pinnedTo: [String]?
    public var botProfile: BotProfile?
    public var userProfile: UserProfile?
    /// Set on a deleted message kept for its replies (`tombstone`).
    public var hidden: Bool?

    /// A reply of a thread, as its root lists them.
    public struct Reply: Codable, Sendable, Equatable {
        public var user: String?
        public var ts: String

        public init(user: String?, ts: String) { (self.user, self.ts) = (user, ts) }
    }

    public struct Edit: Codable, Sendable, Equatable {
        public var user: String?
        public var ts: String

        public init(user: String?, ts: String) { (self.user, self.ts) = (user, ts) }
    }

    /// Everyone who reacted with one emoji, by its name (`+1`, `thumbsup::skin-tone-3`, a custom one).
    public struct Reaction: Codable, Sendable, Equatable {
        public var name: String
        public var users: [String]
        public var count: Int?

        public init(name: String, users: [String]) { (self.name, self.users, self.count) = (name, users, users.count) }
    }

    /// The legacy rich content of bots and unfurls; its plain `fallback` says what it shows.
    public struct Attachment: Codable, Sendable, Equatable {
        public var fallback: String?
        public var pretext: String?
        public var title: String?
        public var text: String?
    }

    public struct BotProfile: Codable, Sendable, Equatable {
        public var name: String?
    }

    /// The author as they were when they wrote it (exports copy it into each message).
    public struct UserProfile: Codable, Sendable, Equatable {
        public var displayName: String?
        public var realName: String?
        public var name: String?
    }

    public init(ts: String, user: String?, text: String) {
        (self.type, self.ts, self.user, self.text) = ("message", ts, user, text)
    }

    public var timestamp: SlackTimestamp? { SlackTimestamp(ts) }

    /// The files it shares, in either of the layouts Slack has written.
    public var sharedFiles: [SlackFile] { files ?? file.map { [$0] } ?? [] }
}

/// A file shared in a message. Standard exports hold links to files, not the files.
public struct SlackFile: Codable, Sendable, Equatable {
    public var id: String
    public var name: String?
    public var title: String?
    public var mimetype: String?
    public var filetype: String?
    public var size: Int?
    /// `hosted`, `external`, `snippet`…; `tombstone` for a deleted file, `hidden_by_limit` for
    /// one beyond a free plan's history.
    public var mode: String?
    public var urlPrivate: String?
    public var urlPrivateDownload: String?
    public var created: SlackNumber?
    public var user: String?

    public init(id: String, name: String?, title: String?, mimetype: String?, size: Int?) {
        (self.id, self.name, self.title, self.mimetype, self.size) = (id, name, title, mimetype, size)
    }

    /// The name it is shown with.
    public var shownName: String {
        for candidate in [name, title] {
            if let text = candidate?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty { return text }
        }
        return id
    }
}

/// A number Slack writes sometimes as a number and sometimes as text (`created`).
public struct SlackNumber: Codable, Sendable, Equatable {
    public let value: Int64

    public init(_ value: Int64) { self.value = value }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int64.self) {
            value = number
        } else if let number = try? container.decode(Double.self) {
            value = Int64(number)
        } else if let text = try? container.decode(String.self), let number = Double(text) {
            value = Int64(number)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a number")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }

    public var date: Date { Date(timeIntervalSince1970: Double(value)) }
}

/// Reading and writing the export's JSON the way Slack spells it.
public enum SlackJSON {
    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }

    /// Sorted keys, so the same workspace exports to the same bytes.
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted]
        return encoder
    }
}
