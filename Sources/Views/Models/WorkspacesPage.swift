/// The list of the viewer's workspaces, the invitations waiting for them, and the form to
/// create one; a new account sees how to create the first.
public struct WorkspacesPage: Sendable {
    public var workspaces: [SidebarWorkspace]
    public var isEmpty: Bool
    public var form: CreateWorkspaceForm
    /// Invitations waiting for the viewer; more arrive live.
    public var invitations: [InvitationRow]
    public var hasInvitations: Bool

    public init(workspaces: [SidebarWorkspace], form: CreateWorkspaceForm, invitations: [InvitationRow] = []) {
        self.workspaces = workspaces
        self.isEmpty = workspaces.isEmpty
        self.form = form
        self.invitations = invitations
        self.hasInvitations = !invitations.isEmpty
    }
}

/// One invitation waiting for the viewer.
public struct InvitationRow: Sendable {
    public var id: Int64
    public var workspaceName: String
    /// "Alice invited you" in the reader's language.
    public var fromText: String
    public var url: String

    public init(id: Int64, workspaceName: String, fromText: String, url: String) {
        self.id = id
        self.workspaceName = workspaceName
        self.fromText = fromText
        self.url = url
    }
}
