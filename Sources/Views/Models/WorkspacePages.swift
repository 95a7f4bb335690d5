/// The form that creates a workspace, with the coins it costs.
public struct CreateWorkspaceForm: Sendable {
    public var name: String
    public var description: String
    public var errors: FieldErrors
    public var price: Int
    public var balance: Int
    /// Shown when the balance does not cover the price, with a link to the store.
    public var coinsMessage: String?
    public var priceNote: String

    public init(name: String = "", description: String = "", errors: FieldErrors = FieldErrors(), price: Int, balance: Int,
                coinsMessage: String? = nil, priceNote: String) {
        self.name = name
        self.description = description
        self.errors = errors
        self.price = price
        self.balance = balance
        self.coinsMessage = coinsMessage
        self.priceNote = priceNote
    }
}

/// A workspace's front page: its channels (and later DMs) for the viewer.
public struct WorkspaceHomePage: Sendable {
    public var id: Int64
    public var name: String
    public var description: String
    public var isOwner: Bool
    public var channels: [RoomLink]
    public var dms: [RoomLink]
    public var hasDMs: Bool
    public var coverURL: String?

    public init(id: Int64, name: String, description: String, isOwner: Bool, channels: [RoomLink], dms: [RoomLink] = []) {
        self.dms = dms
        self.hasDMs = !dms.isEmpty
        self.id = id
        self.name = name
        self.description = description
        self.isOwner = isOwner
        self.channels = channels
    }
}

/// A link to a room with what a list shows about it.
public struct RoomLink: Sendable {
    public var id: Int64
    public var name: String
    public var url: String
    public var description: String
    public var memberCount: Int
    public var joined: Bool
    public var isDefault: Bool
    /// Unread messages, those that mention the viewer, and the badge they make at the room's level.
    public var unread: Int { didSet { showBadge() } }
    public var mentions = 0 { didSet { showBadge() } }
    public var notify = NotifyLevel.standard { didSet { showBadge() } }
    public var isDirect = false { didSet { showBadge() } }
    public var badge: UnreadBadge { UnreadBadge(unread: unread, mentions: mentions, level: notify, isDirect: isDirect) }
    /// The same, stored for templates.
    public private(set) var badgeCount = 0
    public private(set) var hasBadge = false
    public private(set) var isBold = false
    public var lastSnippet: String?
    public var lastTimestamp: String?
    public var lastTimeText: String?
    /// A DM's person: their photo, else the first letter of their name.
    public var avatarURL: String?
    public var initial: String
    /// A DM's person, whose presence its avatar shows, and their custom status.
    public var personId: Int64? { didSet { tone = personId.map(AvatarFace.tone) ?? 0 } }
    public var status: String?
    /// The colour of the person's avatar (`AvatarFace`).
    public private(set) var tone = 0
    /// A private channel.
    public var isPrivate = false
    /// A muted room (dimmed; only mentions counted).
    public private(set) var isMuted = false

    private mutating func showBadge() {
        let badge = self.badge
        (badgeCount, hasBadge, isBold, isMuted) = (badge.count, badge.count > 0, badge.isBold, notify == .mute)
    }
    /// A group conversation: its avatar is a square with how many are in it (`initial`).
    public var isGroup = false

    public init(id: Int64, name: String, url: String, description: String = "", memberCount: Int = 0, joined: Bool = true,
                isDefault: Bool = false, unread: Int = 0, lastSnippet: String? = nil, lastTimestamp: String? = nil,
                lastTimeText: String? = nil) {
        self.initial = AvatarFace.initial(name)
        self.lastSnippet = lastSnippet
        self.lastTimestamp = lastTimestamp
        self.lastTimeText = lastTimeText
        self.id = id
        self.name = name
        self.url = url
        self.description = description
        self.memberCount = memberCount
        self.joined = joined
        self.isDefault = isDefault
        self.unread = unread
        showBadge()
    }
}

/// A person to pick in a hand-over form.
public struct PersonOption: Sendable, Hashable {
    public var id: Int64
    public var nickname: String
    /// Their profile.
    public var url: String

    public init(id: Int64, nickname: String, url: String) {
        self.id = id
        self.nickname = nickname
        self.url = url
    }
}

/// Workspace settings: edit (owner), hand over (owner), delete (owner) or leave (members).
public struct WorkspaceSettingsPage: Sendable {
    public var id: Int64
    public var name: String
    public var description: String
    public var errors: FieldErrors
    public var isOwner: Bool
    public var transferCandidates: [PersonOption]
    public var hasTransferCandidates: Bool
    public var coverURL: String?
    /// For the owner: the private channels, which they may see exist and delete (each link's
    /// `url` is where its delete form posts).
    public var privateChannels: [RoomLink] = [] { didSet { hasPrivateChannels = !privateChannels.isEmpty } }
    public var hasPrivateChannels = false

    public init(id: Int64, name: String, description: String, errors: FieldErrors = FieldErrors(), isOwner: Bool,
                transferCandidates: [PersonOption]) {
        self.id = id
        self.name = name
        self.description = description
        self.errors = errors
        self.isOwner = isOwner
        self.transferCandidates = transferCandidates
        self.hasTransferCandidates = !transferCandidates.isEmpty
    }
}

/// "Are you sure?": what will happen, and one button that does it.
public struct ConfirmPage: Sendable {
    public var heading: String
    /// Each line of what is lost or changed.
    public var consequences: [String]
    public var action: String
    public var button: String
    public var fields: [HiddenField]
    public var cancelURL: String
    public var isDanger: Bool

    public init(heading: String, consequences: [String], action: String, button: String, fields: [HiddenField] = [],
                cancelURL: String, isDanger: Bool = true) {
        self.heading = heading
        self.consequences = consequences
        self.action = action
        self.button = button
        self.fields = fields
        self.cancelURL = cancelURL
        self.isDanger = isDanger
    }
}

public struct HiddenField: Sendable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// The members page: who is in, with roles; the owner invites and removes.
public struct MembersPage: Sendable {
    public var workspaceId: Int64
    public var workspaceName: String
    public var members: [MemberRow]
    public var isOwner: Bool
    public var email: String
    public var errors: FieldErrors
    /// The invitation's link, shown to the inviter (the same answer whether or not the address
    /// has an account).
    public var inviteLink: String?
    /// The link starts with http://localhost:PORT: the server has no `--base-url`.
    public var linkNeedsBaseURL = false
    public var notice: String?
    /// Invitation mail that could not be delivered (the owner's to see, and to send again).
    public var mailFailures: [MailFailureRow] = []
    public var hasMailFailures = false
    /// Pending invitations (the owner's), with their links to copy and their actions.
    public var invitations: [PendingInviteRow] = []
    public var hasInvitations = false
    /// The open join link, when there is one (the owner's), and the form that makes or resets it.
    public var joinLink: JoinLinkView?
    public var joinLinkAction = ""
    public var disableJoinLinkAction = ""
    public var expiryChoices: [NotifyChoice] = []
    public var maxUses = ""

    public init(workspaceId: Int64, workspaceName: String, members: [MemberRow], isOwner: Bool, email: String = "",
                errors: FieldErrors = FieldErrors(), inviteLink: String? = nil, notice: String? = nil) {
        self.workspaceId = workspaceId
        self.workspaceName = workspaceName
        self.members = members
        self.isOwner = isOwner
        self.email = email
        self.errors = errors
        self.inviteLink = inviteLink
        self.notice = notice
    }
}

/// A pending invitation on its workspace's members page.
public struct PendingInviteRow: Sendable {
    public var id: Int64
    public var email: String
    public var link: String
    public var expiresAt: String
    public var expiresText: String
    public var resendURL: String
    public var revokeURL: String

    public init(id: Int64, email: String, link: String, expiresAt: String, expiresText: String, resendURL: String, revokeURL: String) {
        self.id = id
        self.email = email
        self.link = link
        self.expiresAt = expiresAt
        self.expiresText = expiresText
        self.resendURL = resendURL
        self.revokeURL = revokeURL
    }
}

/// A workspace's open join link as its owner sees it.
public struct JoinLinkView: Sendable {
    public var url: String
    /// When it stops working, or nil for never.
    public var expiresAt: String?
    public var expiresText: String?
    public var usesText: String

    public init(url: String, expiresAt: String?, expiresText: String?, usesText: String) {
        self.url = url
        self.expiresAt = expiresAt
        self.expiresText = expiresText
        self.usesText = usesText
    }
}

/// `GET /join/{token}`: the workspace a join link opens, and the way in for this visitor.
public struct JoinPage: Sendable {
    public var workspaceName: String
    public var fromText: String
    public var signedIn: Bool
    public var isMember: Bool
    public var actionURL: String
    public var signupURL: String
    public var loginURL: String
    public var workspaceURL: String

    public init(workspaceName: String, fromText: String, signedIn: Bool, isMember: Bool, actionURL: String, signupURL: String,
                loginURL: String, workspaceURL: String) {
        self.workspaceName = workspaceName
        self.fromText = fromText
        self.signedIn = signedIn
        self.isMember = isMember
        self.actionURL = actionURL
        self.signupURL = signupURL
        self.loginURL = loginURL
        self.workspaceURL = workspaceURL
    }
}

/// A mail given up on: to whom, why, and when.
public struct MailFailureRow: Sendable {
    public var recipient: String
    public var error: String
    public var timestamp: String
    public var timeText: String

    public init(recipient: String, error: String, timestamp: String, timeText: String) {
        self.recipient = recipient
        self.error = error
        self.timestamp = timestamp
        self.timeText = timeText
    }
}

public struct MemberRow: Sendable {
    public var id: Int64
    public var nickname: String
    public var email: String
    public var roleLabel: String
    public var canRemove: Bool
    public var dmURL: String?
    /// Their custom status, as shown.
    public var status: String?
    /// Their profile.
    public var url: String
    /// Where the owner's remove form posts.
    public var removeURL: String

    public init(id: Int64, nickname: String, email: String, roleLabel: String, canRemove: Bool, dmURL: String? = nil,
                url: String, removeURL: String) {
        self.id = id
        self.url = url
        self.removeURL = removeURL
        self.nickname = nickname
        self.email = email
        self.roleLabel = roleLabel
        self.canRemove = canRemove
        self.dmURL = dmURL
    }
}

/// All channels of a workspace, with the form to create one.
public struct ChannelsPage: Sendable {
    /// The create form's choice: a private channel.
    public var isPrivate = false
    public var workspaceId: Int64
    public var channels: [RoomLink]
    public var name: String
    public var description: String
    public var errors: FieldErrors

    public init(workspaceId: Int64, channels: [RoomLink], name: String = "", description: String = "",
                errors: FieldErrors = FieldErrors()) {
        self.workspaceId = workspaceId
        self.channels = channels
        self.name = name
        self.description = description
        self.errors = errors
    }
}

/// A channel's or DM's page: header, messages (oldest first), paging links, the composer.
public struct RoomPage: Sendable, Hashable {
    public var workspaceId: Int64
    /// Nil for a DM whose room does not exist yet (it is created by the first message).
    public var roomId: Int64?
    public var isChannel: Bool
    public var title: String
    public var description: String
    public var memberCountText: String
    public var settingsURL: String?
    public var isMember: Bool
    public var joinURL: String?
    /// The list, rendered from our own templates (day separators, unread line, messages).
    public var messagesHtml: String
    public var isEmpty: Bool
    public var olderURL: String?
    public var newerURL: String?
    /// Whether this page ends with the newest message (live messages are appended only then).
    public var isLatest: Bool
    public var composerAction: String
    public var readURL: String?
    /// Unread messages are shown: the newest one's id, which the no-script "mark as read" form
    /// under the list sends to `readURL`.
    public var markReadUpTo: Int64?
    public var content: String
    public var contentError: String?
    /// The workspace owner may delete anyone's message.
    public var canModerate: Bool = false
    /// Upload limits, for the script's checks before sending and the hint under the composer.
    public var maxFiles: Int = 5
    public var maxFileBytes: Int = 5 * 1024 * 1024
    public var attachHint: String = ""
    /// The parts of messages the page's scripts clone (`MessageListRenderer.scriptTemplates`).
    public var messageTemplatesHtml: String = ""
    /// A DM's or group's members' read markers as JSON (`{"12":340}`), which its read receipts
    /// count from as people read.
    public var receiptsJSON: String?
    /// The file picker's `accept`: the types the server takes (it checks the bytes anyway).
    public var acceptTypes: String = ""
    public var tooLargeText: String = ""
    public var tooManyText: String = ""
    public var coverURL: String?
    /// Where the script edits, deletes and reacts to a message: each holds `messageIdSlot`
    /// where the message's id goes (the server's route list builds them; the script only fills
    /// the id). No reacting outside the room's members.
    public var reactMessageURL: String?
    /// The text mentions everyone in a large room: sending it again (this page's form) confirms.
    public var confirmMentions: Bool = false
    /// The emoji table the reaction picker searches (`Public/emoji.tsv`).
    public var emojiTableURL: String = ""
    /// A DM's person, whose presence and custom status the header shows.
    public var personId: Int64?
    public var personStatus: String?
    /// A private channel: a lock in the header.
    public var isPrivate = false
    /// An archived channel: read-only, a notice where the composer was; its managers get the
    /// way to bring it back.
    public var isArchived = false
    public var unarchiveURL: String?
    /// Where the composer says its writer is typing.
    public var typingURL: String = ""
    /// Room members pin, unpin, save and unsave messages through these (the id slot stands for
    /// the message); nil for a reader who is not a member.
    public var markURLs: MessageMarkURLs?
    /// The room's pinned messages: their list, and the header's count of them.
    public var pinsURL: String?
    public var hasPins: Bool = false
    public var pinsCountText: String = ""
    public var editMessageURL: String = ""
    public var deleteMessageURL: String = ""
    public var messageIdSlot: String = ""
    /// Where the viewer sets how this room notifies them, and the choices; nil for a room that
    /// does not exist yet or that they have not joined.
    public var notifyURL: String?
    public var notifyChoices: [NotifyChoice] = []
    /// A group conversation: its members (each with their presence), the form that adds a
    /// workspace member to it, and the one that leaves it.
    public var isGroup = false
    public var groupMembers: [PersonOption] = []
    public var addMemberURL: String?
    public var addCandidates: [PersonOption] = [] { didSet { hasAddCandidates = !addCandidates.isEmpty } }
    public private(set) var hasAddCandidates = false
    public var leaveURL: String?
    /// Where an author takes their message's link preview off (id slot), for cards that arrive live.
    public var previewRemoveURL: String?
    /// Where a member opens a message's thread (id slot), for messages that arrive live; nil
    /// inside a thread.
    public var threadURL: String?
    /// Set when the page shows a thread (its root and replies) rather than the room's timeline.
    public var thread: ThreadHeader?

    public init(workspaceId: Int64, roomId: Int64?, isChannel: Bool, title: String, description: String,
                memberCountText: String, settingsURL: String?, isMember: Bool, joinURL: String?, messagesHtml: String,
                isEmpty: Bool, olderURL: String?, newerURL: String?, isLatest: Bool, composerAction: String,
                readURL: String?, content: String = "", contentError: String? = nil) {
        self.workspaceId = workspaceId
        self.roomId = roomId
        self.isChannel = isChannel
        self.title = title
        self.description = description
        self.memberCountText = memberCountText
        self.settingsURL = settingsURL
        self.isMember = isMember
        self.joinURL = joinURL
        self.messagesHtml = messagesHtml
        self.isEmpty = isEmpty
        self.olderURL = olderURL
        self.newerURL = newerURL
        self.isLatest = isLatest
        self.composerAction = composerAction
        self.readURL = readURL
        self.content = content
        self.contentError = contentError
    }
}

/// One message as every reader sees it: no per-viewer values (author-only controls are added
/// by the page, from `actionsHtml` on full pages or by the script on live ones).
public struct MessageView: Sendable {
    public var id: Int64
    public var authorId: Int64
    public var author: String
    /// The letters and colour in place of a photo (`AvatarFace`).
    public var initial: String
    public var tone: Int
    /// ISO 8601 UTC; the script shows it in the reader's time zone and language.
    public var timestamp: String
    public var timeText: String
    public var isEdited: Bool
    public var bodyHtml: String
    public var actionsHtml: String?
    /// The message on its page (`?around=N#m-N`, relative: the same in a room and its thread).
    public var link = ""
    public var images: [AttachmentView]
    /// Two images or more: shown as a grid of square tiles (one is shown at its own shape).
    public var hasImageGrid: Bool
    public var documents: [AttachmentView]
    public var hasBody: Bool
    public var avatarURL: String?
    /// The author's profile; nil when the account is gone.
    public var authorURL: String?
    /// A deleted thread root kept for its replies: "This message was deleted" in every language,
    /// no author, text or files.
    public var isDeleted = false
    public var deletedTexts: [LocalText] = []
    /// Its author was deactivated: "(deactivated)" beside the name, in each language.
    public var deactivatedTexts: [LocalText] = []
    /// Its author is an incoming webhook (a bot), said in each language.
    public var botTexts: [LocalText] = []
    /// A reply also sent to the room: its thread, and "replied in a thread" in every language.
    public var threadURL: String?
    public var replyTexts: [LocalText] = []

    public init(id: Int64, authorId: Int64, author: String, timestamp: String, timeText: String, isEdited: Bool,
                bodyHtml: String, actionsHtml: String? = nil, attachments: [AttachmentView] = [], avatarURL: String? = nil,
                authorURL: String? = nil) {
        self.avatarURL = avatarURL
        self.authorURL = authorURL
        self.images = attachments.filter(\.isImage)
        self.hasImageGrid = images.count > 1
        self.documents = attachments.filter { !$0.isImage }
        self.hasBody = !bodyHtml.isEmpty
        self.id = id
        self.authorId = authorId
        self.author = author
        self.initial = AvatarFace.initials(author)
        self.tone = AvatarFace.tone(authorId)
        self.timestamp = timestamp
        self.timeText = timeText
        self.isEdited = isEdited
        self.bodyHtml = bodyHtml
        self.actionsHtml = actionsHtml
    }
}

/// A file attached to a message: images as thumbnails that open the original, others as a card.
public struct AttachmentView: Sendable {
    public var url: String
    public var thumbnailURL: String
    public var name: String
    public var sizeText: String
    public var isImage: Bool
    public var kindLabel: String
    public var width: Int
    public var height: Int
    /// A PDF opens in the browser (`url`) and downloads from `downloadURL`; other files only download.
    public var downloadURL: String?
    /// "Open" and "Download" in every language: message fragments are shared by all readers, and
    /// the stylesheet shows the reader's (`html[lang]`).
    public var openTexts: [LocalText] = []
    public var downloadTexts: [LocalText] = []
    /// Video and audio the browser can play get a player above their card.
    public var player: Player?

    /// The element that plays a file in the page.
    public enum Player: String, Sendable { case video, audio }

    public init(url: String, thumbnailURL: String, name: String, sizeText: String, isImage: Bool, kindLabel: String,
                width: Int, height: Int) {
        self.url = url
        self.thumbnailURL = thumbnailURL
        self.name = name
        self.sizeText = sizeText
        self.isImage = isImage
        self.kindLabel = kindLabel
        self.width = width
        self.height = height
    }
}

/// The controls of a message for the person who may use them (full pages, no JavaScript).
public struct MessageActions: Sendable {
    public var canEdit: Bool
    public var canDelete: Bool
    /// Set when the page shows this message's edit form.
    public var editing: Bool
    public var body: String
    public var cancelURL: String
    public var editURL: String
    /// Where the edit form and the delete form post. The URLs may hold the renderer's id
    /// placeholder, filled in per message (see `MessageListRenderer`).
    public var saveURL: String
    public var deleteURL: String
    /// Where a room member picks a reaction (nil: not a member, no reacting).
    public var reactURL: String?
    /// Where a room member answers the message in its thread (nil: not here, e.g. in the thread).
    public var threadURL: String?
    /// The "Pin" and "Save" buttons, which only the script works: rendered once per page, in the
    /// template the script clones into each message's controls (`tpl-marks`), not per message.
    public var withMarks = false

    public init(canEdit: Bool, canDelete: Bool, editing: Bool, body: String, cancelURL: String, editURL: String,
                saveURL: String, deleteURL: String, reactURL: String? = nil) {
        self.reactURL = reactURL
        self.saveURL = saveURL
        self.deleteURL = deleteURL
        self.canEdit = canEdit
        self.canDelete = canDelete
        self.editing = editing
        self.body = body
        self.cancelURL = cancelURL
        self.editURL = editURL
    }
}

/// A channel's settings: edit, hand over, delete (managers), members, leave.
/// One incoming webhook on its channel's settings page.
public struct WebhookRow: Sendable {
    public var name: String
    public var creator: String
    public var createdAt: String
    public var createdText: String
    /// When it last posted (ISO 8601 for `<time datetime>`, and as text); nil: never.
    public var lastUsedAt: String?
    public var lastUsedText: String?
    /// Where its forms post, for those who may renew or revoke it (else nil).
    public var renewURL: String?
    public var revokeURL: String?

    public init(name: String, creator: String, createdAt: String, createdText: String, lastUsedAt: String?, lastUsedText: String?,
                renewURL: String?, revokeURL: String?) {
        (self.name, self.creator, self.createdAt, self.createdText) = (name, creator, createdAt, createdText)
        (self.lastUsedAt, self.lastUsedText) = (lastUsedAt, lastUsedText)
        (self.renewURL, self.revokeURL) = (renewURL, revokeURL)
    }
}

public struct ChannelSettingsPage: Sendable {
    /// The channel's incoming webhooks (for its members and managers), where a member makes
    /// one, and a new hook's URL, shown this once.
    public var webhooksShown = false
    public var webhooks: [WebhookRow] = []
    public var webhookCreateURL: String?
    public var newWebhookURL: String?
    public var workspaceId: Int64
    public var id: Int64
    public var name: String
    public var description: String
    public var errors: FieldErrors
    public var canManage: Bool
    public var isDefault: Bool
    public var isMember: Bool
    public var isOwner: Bool
    public var members: [PersonOption]
    public var transferCandidates: [PersonOption]
    public var canTransfer: Bool
    public var coverURL: String?
    /// Who can find the channel, and (for its owner, not the default channel) the form that
    /// changes it.
    public var isPrivate = false
    public var visibilityURL: String?
    /// Archived (read-only); where its manager archives or brings it back.
    public var isArchived = false
    public var archiveURL: String?
    /// Members add people from the workspace who are not in it yet.
    public var addMemberURL: String?
    public var addCandidates: [PersonOption] = [] { didSet { hasAddCandidates = !addCandidates.isEmpty } }
    public var hasAddCandidates = false
    /// Where its forms post.
    public var settingsURL: String
    public var deleteURL: String
    public var leaveURL: String
    public var transferURL: String

    public init(workspaceId: Int64, id: Int64, name: String, description: String, errors: FieldErrors = FieldErrors(),
                canManage: Bool, isDefault: Bool, isMember: Bool, isOwner: Bool, members: [PersonOption],
                transferCandidates: [PersonOption], settingsURL: String, deleteURL: String, leaveURL: String, transferURL: String) {
        self.workspaceId = workspaceId
        self.settingsURL = settingsURL
        self.deleteURL = deleteURL
        self.leaveURL = leaveURL
        self.transferURL = transferURL
        self.id = id
        self.name = name
        self.description = description
        self.errors = errors
        self.canManage = canManage
        self.isDefault = isDefault
        self.isMember = isMember
        self.isOwner = isOwner
        self.members = members
        self.transferCandidates = transferCandidates
        self.canTransfer = canManage && !isDefault && !transferCandidates.isEmpty
    }
}

/// The workspace's audit log (owner).
public struct AuditPage: Sendable {
    public var workspaceId: Int64
    public var entries: [AuditRow]
    public var isEmpty: Bool

    public init(workspaceId: Int64, entries: [AuditRow]) {
        self.workspaceId = workspaceId
        self.entries = entries
        self.isEmpty = entries.isEmpty
    }
}

public struct AuditRow: Sendable {
    /// ISO 8601 UTC, for `<time datetime>`; the script shows it in the reader's time zone.
    public var timestamp: String
    public var timeText: String
    public var actor: String
    public var action: String
    public var target: String
    public var detail: String

    public init(timestamp: String, timeText: String, actor: String, action: String, target: String, detail: String) {
        self.timestamp = timestamp
        self.timeText = timeText
        self.actor = actor
        self.action = action
        self.target = target
        self.detail = detail
    }
}

/// A text in one language, for fragments that carry every language and show the reader's.
public struct LocalText: Sendable {
    public var lang: String
    public var text: String

    /// `key` in each language.
    public static func every(_ key: String) -> [LocalText] {
        Lang.allCases.map { LocalText(lang: $0.rawValue, text: Strings(lang: $0)[key]) }
    }

    /// `key` formatted with `arguments` in each language.
    public static func every(_ key: String, _ arguments: any CustomStringConvertible...) -> [LocalText] {
        Lang.allCases.map { LocalText(lang: $0.rawValue, text: Strings(lang: $0).format(key, arguments: arguments)) }
    }
}

/// Where a room page's script pins, unpins, saves and unsaves a message: each URL with the
/// page's id slot where the message id goes.
public struct MessageMarkURLs: Sendable, Hashable {
    public var pin: String
    public var unpin: String
    public var save: String
    public var unsave: String

    public init(pin: String, unpin: String, save: String, unsave: String) {
        (self.pin, self.unpin, self.save, self.unsave) = (pin, unpin, save, unsave)
    }
}

/// The page that starts a conversation: the workspace's members to choose from (one for a
/// DM, two to eight for a group), and why the last choice was refused.
public struct NewConversationPage: Sendable {
    public var action: String
    public var people: [ConversationCandidate]
    public var hint: String
    public var error: String?

    public init(action: String, people: [ConversationCandidate], hint: String, error: String? = nil) {
        self.action = action
        self.people = people
        self.hint = hint
        self.error = error
    }
}

/// Someone who can be added to a conversation, ticked when they were chosen before.
public struct ConversationCandidate: Sendable {
    public var id: Int64
    public var nickname: String
    public var initial: String
    public var tone: Int
    public var avatarURL: String?
    public var isChosen: Bool

    public init(id: Int64, nickname: String, avatarURL: String?, isChosen: Bool) {
        self.id = id
        self.nickname = nickname
        self.initial = AvatarFace.initials(nickname)
        self.tone = AvatarFace.tone(id)
        self.avatarURL = avatarURL
        self.isChosen = isChosen
    }
}

/// A message's link preview card: the page's title (linking to it), description, site and
/// picture. The same for every reader: its author's way to remove it is `LinkPreviewRemoval`.
public struct LinkPreviewCard: Sendable {
    public var messageId: Int64
    public var url: String
    /// The link's host, shown when the page names no site.
    public var host: String
    public var title: String
    public var description: String
    public var siteName: String
    public var imageURL: String?

    public init(messageId: Int64, url: String, host: String, title: String, description: String, siteName: String,
                imageURL: String?) {
        self.messageId = messageId
        self.url = url
        self.host = host
        self.title = title
        self.description = description
        self.siteName = siteName
        self.imageURL = imageURL
    }
}

/// The author's button under their message's preview card (a plain form).
public struct LinkPreviewRemoval: Sendable {
    public var action: String

    public init(action: String) {
        self.action = action
    }
}
