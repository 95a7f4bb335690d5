import Views

extension SiteLinks {
    /// The fixed links, from the route list.
    static let site = SiteLinks(
        root: Paths.root(), workspaces: Paths.workspaces(), newWorkspace: Paths.workspaces(fragment: "new-workspace"),
        store: Paths.store(), checkout: Paths.checkout(), sandboxPay: Paths.sandboxPay(), profile: Paths.profile(),
        password: Paths.password(), login: Paths.login(), resetRequest: Paths.resetRequest(), signup: Paths.signup(), logout: Paths.logout(),
        language: Paths.language(), events: Paths.events(), presence: Paths.presence(), admin: Paths.admin(), twoStep: Paths.twoStep())
}

extension WorkspaceLinks {
    /// The links of workspace `id`.
    init(workspace id: Int64) {
        self.init(home: Paths.workspace(id), search: Paths.search(id), channels: Paths.channels(id), members: Paths.members(id),
                  settings: Paths.workspaceSettings(id), delete: Paths.deleteWorkspace(id), leave: Paths.leaveWorkspace(id),
                  transfer: Paths.transferWorkspace(id), audit: Paths.audit(id),
                  unread: Paths.unread(id), people: Paths.people(id), mentions: Paths.mentions(id), saved: Paths.saved(id),
                  newConversation: Paths.startConversation(id))
        threads = Paths.threads(id)
    }
}

extension PersonOption {
    /// A person as lists and pickers show them, linked to their profile.
    static func profile(_ id: Int64, _ nickname: String) -> PersonOption {
        PersonOption(id: id, nickname: nickname, url: Paths.user(id))
    }
}
