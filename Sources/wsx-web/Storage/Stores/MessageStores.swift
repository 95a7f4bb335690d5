import Foundation

/// What `RoomStore.summaries` reads with each room.
enum RoomSummaryReads: Sendable {
    /// The rooms alone, each unread count 0: the sidebar's lists (its counts are the read
    /// markers') and search. Nothing a post changes is read, so lists kept in memory outlive posts.
    case roomsOnly
    /// With each room's exact unread count (messages after the person's marker, not their own).
    case unreadCounts
    /// With unread counts and each room's last message (the workspace home).
    case lastMessages
}

/// Rooms and who is in them.
protocol RoomStore {
    /// The room of the workspace the person is in, or a 404 (`AppError.notFound`).
    func memberRoom(id: Int64, _ access: WorkspaceAccess) throws -> Room
    /// The rooms the person is in within the workspace, as the sidebar lists them, with what
    /// `reads` says besides.
    func summaries(workspaceId: Int64, userId: Int64, reads: RoomSummaryReads) throws -> [RoomSummary]
    /// The room, if there is one.
    func room(id: Int64) throws -> Room?
    /// The workspace's default channel (everyone is in it), if it has one.
    func defaultRoom(workspaceId: Int64) throws -> Room?
    /// The workspace's DM or group whose key (`dm_key`: its members' ids) is `key`, the newest
    /// if several.
    func conversation(workspaceId: Int64, kind: Room.Kind, key: String) throws -> Room?
    /// The workspace's DMs that `userId` is one of the pair of (left or not).
    func directRooms(workspaceId: Int64, of userId: Int64) throws -> [Room]
    /// Stores a new room with `members` in it, each with nothing read yet.
    func create(_ room: Room, members: [Int64], at now: Date) throws -> Room
    /// Whether the person is in the room.
    func isMember(roomId: Int64, userId: Int64) throws -> Bool
    /// How many people are in the room.
    func memberCount(roomId: Int64) throws -> Int
    /// The ids of everyone in the room.
    func memberIds(roomId: Int64) throws -> [Int64]
    /// The members of each group in `roomIds`, by nickname.
    func groupMembers(of roomIds: [Int64]) throws -> [Int64: [GroupRooms.Person]]
    /// Puts the person in the room, their read marker at `lastReadMessageId`.
    func addMember(roomId: Int64, userId: Int64, joinedAt now: Date, lastReadMessageId: Int64) throws
    /// Takes the people out of the room.
    func removeMembers(roomId: Int64, userIds: [Int64]) throws
    /// The id of the room's newest message (0 for none).
    func latestMessageId(roomId: Int64) throws -> Int64
    /// Whether the room is archived (read-only); false for a room that is not there.
    func isArchived(roomId: Int64) throws -> Bool
    /// Every room membership of the server, as (room, user) pairs.
    func allMemberships() throws -> [(roomId: Int64, userId: Int64)]
    /// Moves the person's read marker in the room forward to `messageId`; answers whether it
    /// moved (never back).
    func advanceMarker(roomId: Int64, userId: Int64, to messageId: Int64) throws -> Bool
    /// Sets a DM's or group's key (`dm_key`).
    func setConversationKey(roomId: Int64, key: String) throws

    /// Every room of the workspace: channels, DMs and groups.
    func rooms(workspaceId: Int64) throws -> [Room]
    /// Stores a new room with nobody in it yet; answers it with its id. Throws `DuplicateKey`
    /// when its workspace has a channel of that name already.
    func insert(_ room: Room) throws -> Room
    /// Saves every field of a stored room. Throws `DuplicateKey` when its workspace has another
    /// channel of that name.
    func update(_ room: Room) throws
    /// Deletes the room with its memberships and messages, and takes its messages' text out of
    /// the event log (`MessageEventScrub`).
    func delete(_ room: Room) throws
    /// Whether the workspace has a channel whose name has this key (`NameRules.key`), other than
    /// `except`.
    func isChannelNameTaken(workspaceId: Int64, nameKey: String, except: Int64?) throws -> Bool
    /// How many channels of the workspace the person owns.
    func ownedChannelCount(workspaceId: Int64, userId: Int64) throws -> Int
    /// The channel `id` of the workspace, how many are in it and whether `userId` is; nil when
    /// the workspace has no such channel.
    func channel(id: Int64, workspaceId: Int64, viewer userId: Int64) throws -> (room: Room, memberCount: Int, isMember: Bool)?
    /// The workspace's channels the person may know of (the public ones, and private ones they
    /// are in): the default first, then by name.
    func channelListings(workspaceId: Int64, userId: Int64) throws -> [ChannelService.Listing]
    /// The workspace's private channels, by name, without their descriptions.
    func privateChannelListings(workspaceId: Int64, userId: Int64) throws -> [ChannelService.Listing]
    /// How many messages the room holds.
    func messageCount(roomId: Int64) throws -> Int
    /// The room's members, by nickname.
    func memberNames(roomId: Int64) throws -> [(id: Int64, nickname: String)]
}

/// Workspaces and who is in them.
protocol WorkspaceStore {
    /// Whether the person is a member of the workspace.
    func isMember(workspaceId: Int64, userId: Int64) throws -> Bool
    /// How many of `userIds` are members of the workspace.
    func memberCount(workspaceId: Int64, among userIds: Set<Int64>) throws -> Int
    /// The person, if they are a member of the workspace.
    func member(workspaceId: Int64, userId: Int64) throws -> User?
    /// The workspaces the person is a member of, by name, as the sidebar lists them.
    func listed(userId: Int64) throws -> [(id: Int64, name: String)]

    /// The workspace as the person may see it through their membership; nil when they are not
    /// a member (or there is no such workspace). Every page inside a workspace asks it.
    func access(workspaceId: Int64, userId: Int64) throws -> WorkspaceAccess?
    /// The workspace with this id, if there is one.
    func workspace(id: Int64) throws -> Workspace?
    /// The workspaces the person belongs to, by name.
    func workspaces(of userId: Int64) throws -> [Workspace]
    /// The workspaces both people belong to, by name.
    func sharedWorkspaces(of viewerId: Int64, with otherId: Int64) throws -> [Workspace]
    /// Whether the person owns a workspace whose name has this key (`NameRules.key`), other
    /// than `except`.
    func isNameTaken(ownerId: Int64, nameKey: String, except: Int64?) throws -> Bool
    /// Stores a new workspace; answers it with its id. Throws `DuplicateKey` when its owner has
    /// a workspace of that name already.
    func insert(_ workspace: Workspace) throws -> Workspace
    /// Saves every field of a stored workspace. Throws `DuplicateKey` when its owner has another
    /// workspace of that name.
    func update(_ workspace: Workspace) throws
    /// Makes the person a member of the workspace with `role`.
    func addMember(workspaceId: Int64, userId: Int64, role: WorkspaceRole, joinedAt now: Date) throws
    /// Makes the old owner a member of the workspace and the new one its owner (their roles
    /// alone; the workspace's `ownerId` is `update`'s).
    func passOwnerRole(workspaceId: Int64, from oldOwnerId: Int64, to newOwnerId: Int64) throws
    /// What deleting the workspace would take away: its channels, members and messages.
    func contents(workspaceId: Int64) throws -> (channels: Int, members: Int, messages: Int)
    /// Deletes the workspace with its rooms, memberships, invitations and log, and takes the
    /// messages of `rooms` (its rooms' ids) out of the event log (`MessageEventScrub`).
    func delete(_ workspace: Workspace, rooms: [Int64]) throws
    /// Every workspace with its owner, size and possible successors, as the administrators'
    /// list shows them: those of deactivated owners first.
    func overview() throws -> [AccountAdministration.WorkspaceSummary]
}

/// Pins: messages a room's members pinned for everyone in it.
protocol PinStore {
    /// Pins the message in its room; answers whether it was not pinned.
    func pin(messageId: Int64, roomId: Int64, by userId: Int64, at now: Date) throws -> Bool
    /// Unpins the message; answers whether it was pinned.
    func unpin(messageId: Int64) throws -> Bool
    /// Whether the message is pinned.
    func isPinned(messageId: Int64) throws -> Bool
    /// How many messages the room has pinned.
    func count(roomId: Int64) throws -> Int
    /// Which of `messageIds` are pinned.
    func pinned(among messageIds: [Int64]) throws -> Set<Int64>
    /// The room's pinned messages with their files, the latest pin first.
    func rows(roomId: Int64) throws -> [MessageRow]
}

/// The lists a person's messages are collected in (`CollectedMessage`).
enum MessageList: String, Sendable {
    /// The messages that mentioned them.
    case mentions
    /// The messages they saved for later.
    case saved = "saved_messages"
}

/// Messages as their rooms' members see them.
protocol MessageStore {
    /// The message and its room, if the person is in the room; else a 404.
    func visible(id: Int64, _ access: WorkspaceAccess) throws -> (Message, Room)
    /// The same, for a change to the message (edit, delete, react, pin): also a 404 for a deleted
    /// message and a 409 when its room is archived.
    func writable(id: Int64, _ access: WorkspaceAccess) throws -> (Message, Room)
    /// The message as a room shows it, with its files (`hasFiles` false skips looking for
    /// attachments it cannot have); a 404 if there is none.
    func row(id: Int64, hasFiles: Bool) throws -> MessageRow
    /// Whole messages of a room by id, with their files, oldest first.
    func rows(roomId: Int64, ids: [Int64]) throws -> [MessageRow]
    /// Whole messages by id, with their files, in no particular order.
    func rows(ids: [Int64]) throws -> [MessageRow]
    /// The message's row, if there is one.
    func message(id: Int64) throws -> Message?
    /// The message's stamp (what a page needs to place it), if there is one.
    func stamp(id: Int64) throws -> MessageStamp?
    /// The room's timeline messages (not deleted) after `after` (created later, or at that time
    /// with a larger id; times compared to the millisecond, as `/v1` writes them), oldest first,
    /// at most `limit`, with their files; from the first without `after`.
    func chats(roomId: Int64, after: (date: Date, id: Int64)?, limit: Int) throws -> [MessageRow]
    /// How many of the room's timeline messages (not deleted) not by `excluding` were created
    /// after `after` (to the millisecond), or at all without it.
    func chatCount(roomId: Int64, after: Date?, excluding authorId: Int64) throws -> Int
    /// A page of the room's timeline (its messages and the replies also sent to it), as stamps,
    /// without what decorates them (reactions, pins, cards, threads).
    func timeline(roomId: Int64, anchor: MessageAnchor, size: Int) throws -> MessagePage
    /// The id of the room's newest message (0 for none).
    func newestId(roomId: Int64) throws -> Int64
    /// The message the author already posted with `clientId`, if any.
    func posted(authorId: Int64, clientId: String) throws -> Int64?
    /// Stores a new message; answers its id.
    func insert(roomId: Int64, authorId: Int64, text: String, html: String, at now: Date, clientId: String?,
                thread: ThreadPlacement?) throws -> Int64
    /// Attaches stored files to the message, in order.
    func attach(fileIds: [Int64], to messageId: Int64) throws
    /// How many times the message was edited.
    func editCount(id: Int64) throws -> Int
    /// Replaces the message's text, counting one more edit.
    func applyEdit(id: Int64, text: String, html: String, editedAt: Date) throws
    /// Deletes the message row (what hangs on it goes with it).
    func delete(id: Int64) throws
    /// Empties a deleted thread root, kept as a placeholder for its replies: no text, files,
    /// reactions, pin, saves, mentions, card or search entry.
    func leavePlaceholder(id: Int64, at now: Date) throws
    /// Records that the message mentions each of `userIds`.
    func addMentions(messageId: Int64, userIds: [Int64]) throws
    /// Forgets whom the message mentions.
    func removeMentions(messageId: Int64) throws
    /// Nicknames of the room's members (the lowest id for a nickname two share), for mentions.
    func memberNicknames(roomId: Int64) throws -> [String: Int64]
    /// Every member of the workspace the room belongs to, by id, with their nickname.
    func workspaceNicknames(roomId: Int64) throws -> [Int64: String]
    /// The workspace's public channels (archived too) by name, for `#name` links.
    func publicChannels(workspaceId: Int64) throws -> [String: Int64]
    /// The person's messages in `list`, in rooms of the workspace they are still in, newest in
    /// the list first, with their files, rooms and conversation names.
    func collected(in list: MessageList, userId: Int64, workspaceId: Int64, limit: Int) throws -> [CollectedMessage]
    /// Each of `rows` with its room and conversation name as `userId` sees it; rows whose room is
    /// gone are left out.
    func collect(_ rows: [MessageRow], for userId: Int64) throws -> [CollectedMessage]
}

/// Each person's saved messages.
protocol SavedMessageStore {
    /// Adds the message to the person's list; answers whether it was not on it.
    func add(messageId: Int64, userId: Int64, at now: Date) throws -> Bool
    /// Takes the message off the person's list; answers whether it was on it.
    func remove(messageId: Int64, userId: Int64) throws -> Bool
    /// The ids of every message the person saved.
    func messageIds(userId: Int64) throws -> Set<Int64>
}

/// Reactions to messages: one per person, emoji and message.
protocol ReactionStore {
    /// Takes back the person's reaction; answers whether they had it.
    func remove(messageId: Int64, emoji: String, userId: Int64) throws -> Bool
    /// Whether anyone reacted to the message with `emoji`.
    func isUsed(messageId: Int64, emoji: String) throws -> Bool
    /// How many different emoji the message has.
    func emojiCount(messageId: Int64) throws -> Int
    /// Adds the person's reaction.
    func add(messageId: Int64, emoji: String, userId: Int64, at now: Date) throws
    /// Whether the message has any reaction.
    func hasAny(messageId: Int64) throws -> Bool
    /// The reactions of each of `messageIds` that has any, in the order people reacted.
    func groups(messageIds: [Int64]) throws -> [Int64: [ReactionGroup]]
}

/// Link preview cards under messages: one per message.
protocol LinkPreviewStore {
    /// Whether the message exists and has no card yet.
    func awaitsPreview(messageId: Int64) throws -> Bool
    /// Stores the card.
    func insert(_ preview: LinkPreview, at now: Date) throws
    /// Takes the message's card away; answers whether it had one.
    func remove(messageId: Int64) throws -> Bool
    /// The cards of those of `messageIds` that have one.
    func previews(among messageIds: [Int64]) throws -> [Int64: LinkPreview]
}

extension MessageStore {
    /// `visible`'s answer, refused for a change: a deleted root's placeholder is kept for its
    /// replies only (a 404), and an archived room is read-only (a 409). Every backend's
    /// `writable` is this.
    static func changeable(_ found: (Message, Room)) throws -> (Message, Room) {
        if found.0.deletedAt != nil { throw AppError.notFound }
        if found.1.isArchived { throw AppError.conflict("error_channel_archived") }
        return found
    }
}
