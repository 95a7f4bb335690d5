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

/// An invitation's page: what it names, and what this visitor can do with it (accept or
/// decline as the invited account; sign up or log in without a session).
public struct InvitePage: Sendable {
    public var token: String
    public var workspaceName: String
    public var inviterNickname: String
    /// "Alice invited you to join." in the reader's language (set by the controller's strings).
    public var invitedByText: String = ""
    public var email: String
    public var expiresAt: String
    public var expiresText: String
    public var signedIn: Bool
    /// Set when the signed-in account is not the invited one.
    public var wrongAccount: Bool
    /// For a visitor without a session: the sign-up form, its email fixed to the invited one.
    public var signup: SignupPage?
    /// Instead, when the invited address has an account made without a password (by a Slack
    /// import): the form that sets its first password.
    public var claim: InviteClaim?
    /// The address's account came from an import and is claimed only through the import's own
    /// invitation: what to do instead.
    public var claimRefused: String?
    /// Where accepting and declining post, and the log-in link that comes back here.
    public var acceptURL: String
    public var declineURL: String
    public var loginURL: String

    public init(token: String, workspaceName: String, inviterNickname: String, email: String, expiresAt: String,
                expiresText: String, signedIn: Bool, wrongAccount: Bool, signup: SignupPage?, acceptURL: String,
                declineURL: String, loginURL: String) {
        self.token = token
        self.acceptURL = acceptURL
        self.declineURL = declineURL
        self.loginURL = loginURL
        self.workspaceName = workspaceName
        self.inviterNickname = inviterNickname
        self.email = email
        self.expiresAt = expiresAt
        self.expiresText = expiresText
        self.signedIn = signedIn
        self.wrongAccount = wrongAccount
        self.signup = signup
    }
}

/// The first password of an account an import made, chosen through its invitation.
public struct InviteClaim: Sendable {
    /// "Your account 민아 came over from Slack…" in the reader's language.
    public var intro: String
    public var errors: FieldErrors

    public init(intro: String, errors: FieldErrors = FieldErrors()) {
        self.intro = intro
        self.errors = errors
    }
}
