/// What every page shows around its content: who is signed in, the language, the CSRF token for
/// forms, the sidebar, a one-time notice, and the URLs of the stylesheet and script.
public struct Chrome: Sendable, Hashable {
    public let lang: Lang
    /// `ko` or `en`, for `<html lang>` and the language switch.
    public let langCode: String
    public var csrfToken: String
    public var viewer: Viewer?
    public var workspaces: [SidebarWorkspace]
    /// The channels (and later DMs) of the workspace being viewed, for the sidebar.
    public let rooms: [SidebarRoom]
    /// Archived channels, under their own heading.
    public let archived: [SidebarRoom]
    public let hasArchived: Bool
    public let channels: [SidebarRoom]
    public let dms: [SidebarRoom]
    public let hasRooms: Bool
    /// The workspace being viewed, if any.
    public var currentWorkspaceId: Int64?
    /// A one-time notice from the previous request ("Profile saved").
    public var flash: String?
    /// The current path, where the language switch comes back to.
    public var path: String
    /// The viewer's coins, shown in the top bar and updated live.
    public var coinBalance: Int = 0
    /// The newest real-time event id when the page was read (signed-in pages only).
    public var lastEventId: Int64?
    /// The newest event the sidebar's room counts include, and its thread counts': the script
    /// does not count again an event replayed to the page that they already hold.
    public var roomsCountedThrough: Int64?
    public var threadsCountedThrough: Int64?
    public var cssURL: String
    /// The page's scripts, in order (all deferred).
    public var scriptURLs: [String]
    /// Payments run in the sandbox: every page says so (`--payments sandbox`).
    public var testPayments = false
    /// The site's fixed links.
    public var links: SiteLinks
    /// The links of the workspace being viewed, if any.
    public var workspace: WorkspaceLinks?
    /// The numbers of the sidebar's badges added up, for the tab title; nil when none.
    public var unreadTotal: Int?
    /// Some room has unread messages (a number or a bold name): the tab icon has a dot.
    public var hasUnseen = false
    /// Unread mentions in the workspace (rooms and threads): the sidebar's Mentions badge.
    public var mentionsUnread = 0 { didSet { hasMentionsUnread = mentionsUnread > 0 } }
    public private(set) var hasMentionsUnread = false
    /// What the phone's menu button shows: the badge numbers of the rooms other than the one
    /// open added up, or a dot for unread messages without a number (and unread thread replies).
    public private(set) var elsewhereCount = 0
    public private(set) var hasElsewhereCount = false
    public private(set) var hasElsewhereUnseen = false
    /// The tab's icon, and the one with a dot for unread messages.
    public var iconURL = ""
    /// Replies the viewer has not read in the threads they follow in the current workspace.
    public var threadsUnread = 0 { didSet { hasElsewhereUnseen = threadsUnread > 0 || Self.unseen(elsewhereIn: rooms) } }
    /// The page is shown inside another page of the site (a thread's side panel): no top bar,
    /// no sidebar.
    public var isEmbedded = false
    public var hasThreadsUnread: Bool { threadsUnread > 0 }
    public var unreadIconURL = ""
    /// The web app manifest and the home screen icon.
    public var manifestURL = ""
    public var appleTouchIconURL = ""
    /// Web Push's key and where a browser's subscription goes (signed in, push on).
    public var pushKeyURL: String?
    public var pushSubscriptionsURL: String?

    public init(lang: Lang, csrfToken: String, viewer: Viewer?, workspaces: [SidebarWorkspace] = [],
                rooms: [SidebarRoom] = [], currentWorkspaceId: Int64? = nil, flash: String? = nil, path: String, lastEventId: Int64? = nil, cssURL: String, scriptURLs: [String], links: SiteLinks) {
        self.lang = lang
        self.langCode = lang.rawValue
        self.csrfToken = csrfToken
        self.viewer = viewer
        self.workspaces = workspaces
        self.rooms = rooms
        self.channels = rooms.filter { !$0.isDM && !$0.isArchived }
        self.archived = rooms.filter(\.isArchived)
        self.hasArchived = !archived.isEmpty
        self.dms = rooms.filter(\.isDM)
        self.currentWorkspaceId = currentWorkspaceId
        self.hasRooms = currentWorkspaceId != nil
        let unread = currentWorkspaceId == nil ? 0 : rooms.reduce(0) { $0 + ($1.isArchived ? 0 : $1.badge.count) }
        self.unreadTotal = unread > 0 ? unread : nil
        self.hasUnseen = rooms.contains { !$0.isArchived && ($0.hasBadge || $0.isBold) }
        let elsewhere = rooms.filter(Self.isElsewhere)
        self.elsewhereCount = elsewhere.reduce(0) { $0 + $1.badgeCount }
        self.hasElsewhereCount = elsewhereCount > 0
        self.hasElsewhereUnseen = Self.unseen(elsewhereIn: rooms)
        self.flash = flash
        self.path = path
        self.lastEventId = lastEventId
        self.cssURL = cssURL
        self.scriptURLs = scriptURLs
        self.links = links
    }

}

extension Chrome {
    /// A room the menu button speaks for: not the open one, not archived.
    static func isElsewhere(_ room: SidebarRoom) -> Bool { !room.isCurrent && !room.isArchived }

    /// Whether a room other than the open one has unread messages (a number or a bold name).
    static func unseen(elsewhereIn rooms: [SidebarRoom]) -> Bool {
        rooms.contains { isElsewhere($0) && ($0.hasBadge || $0.isBold) }
    }
}

/// The signed-in user as pages show them.
public struct Viewer: Sendable, Hashable {
    public var id: Int64
    public var nickname: String
    /// How rooms they did not set notify them (`NotifyLevel`'s raw value), for the script.
    public var notifyDefault: String
    /// A server administrator: the top bar links to `/admin`.
    public var isAdmin: Bool

    public init(id: Int64, nickname: String, notifyDefault: String = NotifyLevel.standard.rawValue, isAdmin: Bool = false) {
        self.id = id
        self.nickname = nickname
        self.notifyDefault = notifyDefault
        self.isAdmin = isAdmin
    }
}

/// A workspace in the sidebar.
public struct SidebarWorkspace: Sendable, Hashable {
    public var id: Int64
    public var name: String
    public var url: String
    public var isCurrent: Bool

    public init(id: Int64, name: String, url: String, isCurrent: Bool) {
        self.id = id
        self.name = name
        self.url = url
        self.isCurrent = isCurrent
    }
}

/// A room in the sidebar: a channel, DM or group conversation of the current workspace.
public struct SidebarRoom: Sendable, Hashable {
    public var id: Int64
    public var name: String
    public var url: String
    public var isCurrent: Bool
    /// Unread messages of its timeline, and how many of them mention the viewer.
    public var unread: Int { didSet { showBadge() } }
    public var mentions = 0 { didSet { showBadge() } }
    public var isDM: Bool { didSet { showBadge() } }
    /// What its entry shows for them at its level (`UnreadBadge`).
    public var badge: UnreadBadge { UnreadBadge(unread: unread, mentions: mentions, level: notify, isDirect: isDM) }
    /// The same, stored for templates: the number (none at 0) and a bold name.
    public private(set) var badgeCount = 0
    public private(set) var hasBadge = false
    public private(set) var isBold = false
    /// A DM's person: their photo, else the first letter of their name.
    public var avatarURL: String?
    public var initial: String
    /// A DM's person, whose presence its avatar shows, and their custom status.
    public var personId: Int64? { didSet { tone = personId.map(AvatarFace.tone) ?? 0 } }
    public var status: String?
    /// The colour of the person's avatar (`AvatarFace`).
    public private(set) var tone = 0
    /// A private channel (a lock where a public one has #).
    public var isPrivate = false
    /// An archived channel: listed apart, greyed.
    public var isArchived = false
    /// A group conversation: its avatar shows how many are in it (`initial`).
    public var isGroup = false
    /// How it notifies the viewer: their own choice for it, else their default.
    public var notify: NotifyLevel { didSet { showBadge() } }
    /// Whether the viewer chose the level for this room (not their default).
    public var hasOwnNotify: Bool
    public var isMuted: Bool { notify == .mute }

    private mutating func showBadge() {
        let badge = self.badge
        (badgeCount, hasBadge, isBold) = (badge.count, badge.count > 0, badge.isBold)
    }

    /// `initial`: the name's letter when the caller has it already (kept with the lists), else
    /// worked out here.
    public init(id: Int64, name: String, url: String, isCurrent: Bool, unread: Int = 0, mentions: Int = 0, isDM: Bool = false,
                avatarURL: String? = nil, notify: NotifyLevel = .standard, hasOwnNotify: Bool = false, initial: String? = nil) {
        self.mentions = mentions
        self.notify = notify
        self.hasOwnNotify = hasOwnNotify
        self.isDM = isDM
        self.avatarURL = avatarURL
        self.initial = initial ?? AvatarFace.initial(name)
        self.id = id
        self.name = name
        self.url = url
        self.isCurrent = isCurrent
        self.unread = unread
        showBadge()
    }
}
