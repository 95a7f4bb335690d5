/// What every page shows around its content: who is signed in, the language, the CSRF token for
/// forms, the sidebar, a one-time notice, and the URLs of the stylesheet and script.
public struct Chrome: Sendable {
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
    public var cssURL: String
    /// The page's scripts, in order (all deferred).
    public var scriptURLs: [String]
    /// Payments run in the sandbox: every page says so (`--payments sandbox`).
    public var testPayments = false
    /// The site's fixed links.
    public var links: SiteLinks
    /// The links of the workspace being viewed, if any.
    public var workspace: WorkspaceLinks?
    /// Unread messages in the workspace being viewed, for the tab title; nil when none.
    public var unreadTotal: Int?
    /// The tab's icon, and the one with a dot for unread messages.
    public var iconURL = ""
    /// Replies the viewer has not read in the threads they follow in the current workspace.
    public var threadsUnread = 0
    /// The page is shown inside another page of the site (a thread's side panel): no top bar,
    /// no sidebar.
    public var isEmbedded = false
    public var hasThreadsUnread: Bool { threadsUnread > 0 }
    public var unreadIconURL = ""

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
        let unread = currentWorkspaceId == nil ? 0 : rooms.reduce(0) { $0 + ($1.isMuted ? 0 : $1.unread) }
        self.unreadTotal = unread > 0 ? unread : nil
        self.flash = flash
        self.path = path
        self.lastEventId = lastEventId
        self.cssURL = cssURL
        self.scriptURLs = scriptURLs
        self.links = links
    }

}

/// The signed-in user as pages show them.
public struct Viewer: Sendable {
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
public struct SidebarWorkspace: Sendable {
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
public struct SidebarRoom: Sendable {
    public var id: Int64
    public var name: String
    public var url: String
    public var isCurrent: Bool
    public var unread: Int
    public var isDM: Bool
    public var hasUnread: Bool
    /// A DM's person: their photo, else the first letter of their name.
    public var avatarURL: String?
    public var initial: String
    /// A DM's person, whose presence its avatar shows, and their custom status.
    public var personId: Int64?
    public var status: String?
    /// A private channel (a lock where a public one has #).
    public var isPrivate = false
    /// An archived channel: listed apart, greyed.
    public var isArchived = false
    /// A group conversation: its avatar shows how many are in it (`initial`).
    public var isGroup = false
    /// How it notifies the viewer: their own choice for it, else their default.
    public var notify: NotifyLevel
    /// Whether the viewer chose the level for this room (not their default).
    public var hasOwnNotify: Bool
    public var isMuted: Bool { notify == .mute }

    public init(id: Int64, name: String, url: String, isCurrent: Bool, unread: Int = 0, isDM: Bool = false,
                avatarURL: String? = nil, notify: NotifyLevel = .standard, hasOwnNotify: Bool = false) {
        self.notify = notify
        self.hasOwnNotify = hasOwnNotify
        self.isDM = isDM
        self.avatarURL = avatarURL
        self.initial = name.first.map { String($0).uppercased() } ?? "?"
        self.hasUnread = unread > 0
        self.id = id
        self.name = name
        self.url = url
        self.isCurrent = isCurrent
        self.unread = unread
    }
}
