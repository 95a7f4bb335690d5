/// The list of the viewer's workspaces and the form to create one; a new account sees how to
/// create the first.
public struct WorkspacesPage: Sendable {
    public var workspaces: [SidebarWorkspace]
    public var isEmpty: Bool
    public var form: CreateWorkspaceForm

    public init(workspaces: [SidebarWorkspace], form: CreateWorkspaceForm) {
        self.workspaces = workspaces
        self.isEmpty = workspaces.isEmpty
        self.form = form
    }
}
