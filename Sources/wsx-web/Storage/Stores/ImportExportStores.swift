import Foundation
import Views

/// A message of the import as it is written (`SlackImportStore.insertMessage`).
struct ImportedMessage: Sendable {
    let roomId: Int64
    /// nil: nobody (a deleted root's placeholder).
    let authorId: Int64?
    /// The text as written (Markdown).
    let body: String
    /// Its rendering: the HTML kept, the plain text indexed, whom it mentions.
    let rendered: MessageHTML.Rendered
    let createdAt: Date
    let editedAt: Date?
    /// The thread it replies in, if it is a reply.
    let threadRootId: Int64?
    /// In the room's timeline: not a reply, or a reply also sent to the room.
    let inTimeline: Bool
}

/// A message's text and rendering, as the import reads them back to render them again.
struct ImportedMessageText: Sendable {
    let id: Int64
    let roomId: Int64
    let body: String
    let html: String
}

/// A message as the export reads it.
struct ExportedMessage: Sendable {
    let id: Int64
    let authorId: Int64?
    let html: String
    let createdAt: Date
    let editedAt: Date?
    let threadRootId: Int64?
    let inTimeline: Bool
    /// A deleted root kept for its replies.
    let isDeleted: Bool
}

/// Who pinned a message and when, as the export reads it.
struct ExportedPin: Sendable {
    /// nil when nobody is known (an import's pin, or the account is gone).
    let pinnedBy: Int64?
    let at: Date
}

/// What bringing a Slack export in (`SlackImport`) and writing one (`SlackExport`) read and write
/// beyond the other stores: the Slack id of each person, room, message and file of a workspace
/// (`slack_ids`), and the import's own writes, made so that running an import again adds
/// nothing (a row that is there already is left as it is) and so that statements repeated for
/// every message are prepared once.
protocol SlackImportStore {
    // MARK: Slack ids

    /// Local ids by Slack id, for one kind.
    func localIds(workspaceId: Int64, kind: SlackIds.Kind) throws -> [String: Int64]
    /// Slack ids by local id, for one kind (an export's ids). One local row may have been read
    /// under two ids (two exports): the first stays.
    func slackIds(workspaceId: Int64, kind: SlackIds.Kind) throws -> [Int64: String]
    /// The local id behind one Slack id.
    func localId(workspaceId: Int64, kind: SlackIds.Kind, slackId: String) throws -> Int64?
    /// The keys (`SlackIds.messageKey`) of the messages of one conversation already brought over,
    /// with their local ids, in key order.
    func messageKeys(workspaceId: Int64, conversation: String) throws -> [(key: String, localId: Int64)]
    /// Remembers a pairing (the first one for a Slack id stays).
    func remember(workspaceId: Int64, kind: SlackIds.Kind, slackId: String, localId: Int64) throws

    // MARK: Workspaces and people

    /// The workspace of this owner whose name has this key (`NameRules.key`), if there is one.
    func workspace(ownerId: Int64, nameKey: String) throws -> Workspace?
    /// The ids of the workspaces whose name has this key, in id order (the export command's
    /// `--workspace NAME`).
    func workspaceIds(nameKey: String) throws -> [Int64]
    /// Stores a new workspace with its owner as its first member, joined at `now`; answers it
    /// with its id. Its rooms are made apart.
    func createWorkspace(_ workspace: Workspace, at now: Date) throws -> Workspace
    /// The ids of the workspace's members.
    func memberIds(workspaceId: Int64) throws -> [Int64]
    /// Stores a new account as given (the import's accounts have no password); answers its id.
    func createAccount(_ user: User) throws -> Int64
    /// Makes the person a member of the workspace and puts them in its default channel (when
    /// it has one), having read everything in it; answers false, changing nothing, when they
    /// were a member already.
    func join(workspaceId: Int64, defaultRoom: Int64?, userId: Int64, at now: Date) throws -> Bool
    /// The accounts with these ids (those that exist).
    func users(ids: [Int64]) throws -> [User]
    /// The nicknames of the accounts with these ids, in id order.
    func nicknames(userIds: [Int64]) throws -> [String]

    // MARK: Rooms

    /// The workspace's channel whose name has this key, if there is one.
    func channel(workspaceId: Int64, nameKey: String) throws -> Room?
    /// Whether a channel of the workspace has a name with this key.
    func isChannelNameTaken(workspaceId: Int64, nameKey: String) throws -> Bool
    /// A DM or group of the workspace whose key (`dm_key`: its members' ids) is `dmKey`.
    func conversation(workspaceId: Int64, kind: Room.Kind, dmKey: String) throws -> Room?
    /// The newest message of the room's timeline before the import wrote any (0 for none): who
    /// had read it had read everything.
    func newestTimelineMessage(roomId: Int64) throws -> Int64
    /// Puts `members` in the room, reading everything brought over: newcomers read up to its
    /// newest message, and members who had read everything before the import (`caughtUpAt`)
    /// read what it brought too.
    func settle(roomId: Int64, members: [Int64], caughtUpAt: Int64, at now: Date) throws
    /// For each thread of `roots`: everyone who wrote in it, or was mentioned there, and is in
    /// its room follows it, having read it.
    func followThreads(roomId: Int64, roots: [Int64]) throws
    /// The workspace's rooms an export writes, by id: its public channels, or with
    /// `includePrivate` every channel, DM and group.
    func exportedRooms(workspaceId: Int64, includePrivate: Bool) throws -> [Room]
    /// The members of each room of the workspace, by room id, each list in user id order.
    func roomMembers(workspaceId: Int64) throws -> [Int64: [Int64]]

    // MARK: Messages

    /// The id of the newest message of every workspace (0 for none).
    func newestMessageId() throws -> Int64
    /// Writes one message of the import with its search index entry and whom it mentions
    /// (nobody is online: no `@here`); answers its id. No event is published.
    func insertMessage(_ message: ImportedMessage) throws -> Int64
    /// Makes the message a deleted root's placeholder, deleted at `at`: no text is kept.
    func markPlaceholder(messageId: Int64, at: Date) throws
    /// Attaches the files to the message, in this order.
    func attachFiles(_ fileIds: [Int64], to messageId: Int64) throws
    /// Pins the message in its room, by `pinnedBy` (nil: nobody known); answers whether it was
    /// not pinned.
    func pin(messageId: Int64, roomId: Int64, pinnedBy: Int64?, at: Date) throws -> Bool
    /// Adds the person's reaction; answers whether they did not have it.
    func addReaction(messageId: Int64, emoji: String, userId: Int64, at: Date) throws -> Bool
    /// The workspace's messages written after `lastMessageId`, not deleted, that may name a
    /// channel (`#개발`), by id.
    func messagesNamingChannels(workspaceId: Int64, after lastMessageId: Int64) throws -> [Int64]
    /// The text and rendering of these messages.
    func messageTexts(ids: [Int64]) throws -> [ImportedMessageText]
    /// Replaces the message's rendering.
    func setHTML(_ html: String, messageId: Int64) throws
    /// The room's messages as an export writes them, by id.
    func exportedMessages(roomId: Int64) throws -> [ExportedMessage]
    /// Who pinned each pinned message of the room, and when, by message id.
    func pins(roomId: Int64) throws -> [Int64: ExportedPin]

    // MARK: What messages are rendered with (`MessageService`)

    /// Whom `@…` may mention in the room (`MessageService.mentionDirectory`).
    func mentionDirectory(roomId: Int64) throws -> MentionDirectory
    /// The workspace's public channels, for `#name` links (`MessageService.publicChannels`).
    func publicChannels(workspaceId: Int64) throws -> ChannelDirectory
    /// Nicknames of the room's members, for mentions (`MessageService.nicknames`).
    func nicknames(roomId: Int64) throws -> [String: Int64]
}

/// A generated message as `seed` writes it.
struct GeneratedMessage: Sendable {
    let roomId: Int64
    let authorId: Int64
    let body: String
    let html: String
    let createdAt: Date
}

/// What `wsx-web seed` writes in bulk for benchmarks: memberships and messages, without
/// real-time events.
protocol SeedStore {
    /// Puts the person in the room, having read nothing, unless they are in it.
    func addMember(roomId: Int64, userId: Int64, at now: Date) throws
    /// Writes the messages in this order, each with its search index entry (no mentions).
    func insert(_ messages: [GeneratedMessage]) throws
}
