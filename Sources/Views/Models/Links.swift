/// The site's fixed links, for the layout and the forms of pages outside a workspace. The server
/// fills them from its route list (`Paths`), so templates never spell a path.
public struct SiteLinks: Sendable, Hashable {
    public var root: String
    public var workspaces: String
    /// The create-workspace form on the workspaces page.
    public var newWorkspace: String
    public var store: String
    public var checkout: String
    public var sandboxPay: String
    public var profile: String
    public var password: String
    public var login: String
    /// "Forgot password?".
    public var resetRequest: String
    public var signup: String
    public var logout: String
    public var language: String
    /// The live event stream.
    public var events: String
    /// Where a browser says its tabs are all hidden or idle, or in use again.
    public var presence: String
    /// The server administrators' pages.
    public var admin: String
    /// Two-step sign-in in the profile.
    public var twoStep: String

    public init(root: String, workspaces: String, newWorkspace: String, store: String, checkout: String, sandboxPay: String,
                profile: String, password: String, login: String, resetRequest: String, signup: String, logout: String,
                language: String, events: String, presence: String, admin: String = "", twoStep: String = "") {
        self.admin = admin
        self.twoStep = twoStep
        self.resetRequest = resetRequest
        self.events = events
        self.presence = presence
        self.root = root
        self.workspaces = workspaces
        self.newWorkspace = newWorkspace
        self.store = store
        self.checkout = checkout
        self.sandboxPay = sandboxPay
        self.profile = profile
        self.password = password
        self.login = login
        self.signup = signup
        self.logout = logout
        self.language = language
    }
}

/// The links of the workspace being viewed: the sidebar's, and the forms of its pages.
public struct WorkspaceLinks: Sendable, Hashable {
    public var home: String
    public var search: String
    public var channels: String
    public var members: String
    public var settings: String
    public var delete: String
    public var leave: String
    public var transfer: String
    public var audit: String
    /// The unread counts of its rooms (JSON, for the script).
    public var unread: String
    /// Its members with their profile and DM links (JSON, for the quick switcher and @ picker).
    public var people: String
    /// The viewer's recent mentions in it.
    public var mentions: String
    /// The viewer's saved messages in it.
    public var saved: String
    /// Where a DM or group conversation is started.
    public var newConversation: String
    /// The threads the viewer follows in it.
    public var threads: String = ""

    public init(home: String, search: String, channels: String, members: String, settings: String, delete: String,
                leave: String, transfer: String, audit: String, unread: String, people: String, mentions: String, saved: String,
                newConversation: String) {
        self.newConversation = newConversation
        self.mentions = mentions
        self.saved = saved
        self.unread = unread
        self.people = people
        self.home = home
        self.search = search
        self.channels = channels
        self.members = members
        self.settings = settings
        self.delete = delete
        self.leave = leave
        self.transfer = transfer
        self.audit = audit
    }
}
