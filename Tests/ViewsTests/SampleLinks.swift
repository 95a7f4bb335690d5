@testable import Views

/// Links for rendering tests, each different, so a template that shows the wrong one is caught.
extension SiteLinks {
    static let sample = SiteLinks(root: "/", workspaces: "/workspaces", newWorkspace: "/workspaces#new-workspace", store: "/store",
                                  checkout: "/store/checkout", sandboxPay: "/sandbox-pay", profile: "/profile",
                                  password: "/profile/password", login: "/login", resetRequest: "/reset", signup: "/signup", logout: "/logout",
                                  language: "/lang", events: "/events", presence: "/presence")
}

extension WorkspaceLinks {
    static let sample = WorkspaceLinks(home: "/w/1", search: "/w/1/search", channels: "/w/1/channels", members: "/w/1/members",
                                       settings: "/w/1/settings", delete: "/w/1/delete", leave: "/w/1/leave",
                                       transfer: "/w/1/transfer", audit: "/w/1/audit",
                                       unread: "/w/1/unread", people: "/w/1/people",
                                       mentions: "/w/1/mentions", saved: "/w/1/saved", newConversation: "/w/1/dm")
}
