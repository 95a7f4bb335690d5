/// The list of the viewer's workspaces; empty for a new account, which sees how to create one.
public struct WorkspacesPage: Sendable {
    public var workspaces: [SidebarWorkspace]
    public var isEmpty: Bool

    public init(workspaces: [SidebarWorkspace]) {
        self.workspaces = workspaces
        self.isEmpty = workspaces.isEmpty
    }
}
