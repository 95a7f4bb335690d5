/// The tabs of the administrators' pages.
public struct AdminTabs: Sendable {
    public var accountsURL: String
    public var workspacesURL: String
    public var mailURL: String
    public var logURL: String
    /// Which one is shown: `accounts`, `workspaces`, `mail` or `log`.
    public let current: String
    public let isAccounts: Bool, isWorkspaces: Bool, isMail: Bool, isLog: Bool

    public init(accountsURL: String, workspacesURL: String, mailURL: String, logURL: String, current: String) {
        self.accountsURL = accountsURL
        self.workspacesURL = workspacesURL
        self.mailURL = mailURL
        self.logURL = logURL
        self.current = current
        (isAccounts, isWorkspaces, isMail, isLog) = (current == "accounts", current == "workspaces", current == "mail", current == "log")
    }
}

/// `/admin`: every account, with search.
public struct AdminAccountsPage: Sendable {
    public var tabs: AdminTabs
    public var query: String
    public var searchURL: String
    public var accounts: [AdminAccountRow] { didSet { isEmpty = accounts.isEmpty } }
    public private(set) var isEmpty: Bool
    public var notice: String?
    public var error: String?

    public init(tabs: AdminTabs, query: String, searchURL: String, accounts: [AdminAccountRow], notice: String? = nil,
                error: String? = nil) {
        self.tabs = tabs
        self.query = query
        self.searchURL = searchURL
        self.accounts = accounts
        isEmpty = accounts.isEmpty
        self.notice = notice
        self.error = error
    }
}

/// One account on the administrators' list, with what may be done to it.
public struct AdminAccountRow: Sendable {
    public var id: Int64
    public var email: String
    public var nickname: String
    public var profileURL: String
    /// `active`, `deactivated` or `invited` (an imported account whose person has not come yet).
    public let state: String
    public var stateText: String
    public let isDeactivated: Bool
    public var isAdmin: Bool
    public var twoStep: Bool
    public var workspaces: Int
    public var lastSeen: String?
    public var lastSeenText: String?
    public var createdAt: String
    public var createdText: String
    /// Forms; nil where the action does not apply (the last administrator, oneself).
    public var deactivateURL: String?
    public var reactivateURL: String?
    public var promoteURL: String?
    public var demoteURL: String?

    public init(id: Int64, email: String, nickname: String, profileURL: String, state: String, stateText: String, isAdmin: Bool,
                twoStep: Bool, workspaces: Int, createdAt: String, createdText: String) {
        self.id = id
        self.email = email
        self.nickname = nickname
        self.profileURL = profileURL
        self.state = state
        isDeactivated = state == "deactivated"
        self.stateText = stateText
        self.isAdmin = isAdmin
        self.twoStep = twoStep
        self.workspaces = workspaces
        self.createdAt = createdAt
        self.createdText = createdText
    }
}

/// `/admin/workspaces`: every workspace, its owner and size; a deactivated owner's can be
/// handed to a member.
public struct AdminWorkspacesPage: Sendable {
    public var tabs: AdminTabs
    public var workspaces: [AdminWorkspaceRow]
    public var notice: String?
    public var error: String?

    public init(tabs: AdminTabs, workspaces: [AdminWorkspaceRow], notice: String? = nil, error: String? = nil) {
        self.tabs = tabs
        self.workspaces = workspaces
        self.notice = notice
        self.error = error
    }
}

public struct AdminWorkspaceRow: Sendable {
    public var id: Int64
    public var name: String
    public var owner: String
    public var ownerDeactivated: Bool
    public var sizeText: String
    /// The hand-over form, for a deactivated owner's workspace with someone to take it.
    public var handOverURL: String?
    public let successors: [PersonOption]
    public let hasSuccessors: Bool

    public init(id: Int64, name: String, owner: String, ownerDeactivated: Bool, sizeText: String, handOverURL: String?,
                successors: [PersonOption]) {
        self.id = id
        self.name = name
        self.owner = owner
        self.ownerDeactivated = ownerDeactivated
        self.sizeText = sizeText
        self.handOverURL = handOverURL
        self.successors = successors
        hasSuccessors = !successors.isEmpty
    }
}

/// `/admin/mail` and `/admin/log`: lines, newest first.
public struct AdminLinesPage: Sendable {
    public var tabs: AdminTabs
    public var heading: String
    public var intro: String
    public let lines: [AdminLine]
    public let isEmpty: Bool
    public var emptyText: String
    public var olderURL: String?

    public init(tabs: AdminTabs, heading: String, intro: String, lines: [AdminLine], emptyText: String, olderURL: String? = nil) {
        self.tabs = tabs
        self.heading = heading
        self.intro = intro
        self.lines = lines
        isEmpty = lines.isEmpty
        self.emptyText = emptyText
        self.olderURL = olderURL
    }
}

public struct AdminLine: Sendable {
    public var timestamp: String
    public var timeText: String
    public var text: String
    public var detail: String

    public init(timestamp: String, timeText: String, text: String, detail: String) {
        self.timestamp = timestamp
        self.timeText = timeText
        self.text = text
        self.detail = detail
    }
}
