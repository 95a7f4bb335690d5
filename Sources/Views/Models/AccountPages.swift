/// The sign-in form, with the email kept after a failed attempt.
public struct LoginPage: Sendable {
    public var email: String
    /// One message for every failure (never which of email or password was wrong).
    public var error: String?
    /// Where to go after signing in (a local path).
    public var next: String?

    public init(email: String = "", error: String? = nil, next: String? = nil) {
        self.email = email
        self.error = error
        self.next = next
    }
}

/// The sign-up form, with the input kept and a message beside each wrong field.
public struct SignupPage: Sendable {
    public var email: String
    public var nickname: String
    public var phone: String
    public var errors: FieldErrors
    /// Set when signing up through an invitation.
    public var inviteToken: String?
    /// A message about the whole form (too many sign-ups from this network).
    public var notice: String?
    /// Where the new account goes once made (a workspace's join link), when not its workspaces.
    public var next: String?
    /// Who may sign up here, when not anyone (`--signup invite|domain`).
    public var policyNote: String?
    /// Sign-up on the form is closed to this visitor: the note says why, and no form is shown.
    public var closed = false

    public init(email: String = "", nickname: String = "", phone: String = "", errors: FieldErrors = FieldErrors(),
                inviteToken: String? = nil, notice: String? = nil, next: String? = nil) {
        self.next = next
        self.email = email
        self.nickname = nickname
        self.phone = phone
        self.errors = errors
        self.inviteToken = inviteToken
        self.notice = notice
    }
}

/// The form behind a one-time password reset link.
/// `GET|POST /reset`: the address to send a reset link to, and what happened.
public struct ResetRequestPage: Sendable {
    public var email: String
    public var actionURL: String
    /// The same words for every address, known or not (or the operator's way, without mail).
    public var notice: String?
    /// Whether this server sends mail; without it the page says how the operator makes a link.
    public var mailEnabled: Bool
    public var error: String?

    public init(email: String = "", actionURL: String, notice: String? = nil, mailEnabled: Bool, error: String? = nil) {
        self.email = email
        self.actionURL = actionURL
        self.notice = notice
        self.mailEnabled = mailEnabled
        self.error = error
    }
}

public struct ResetPasswordPage: Sendable {
    public var token: String
    public var email: String
    public var errors: FieldErrors
    /// Where the form posts.
    public var actionURL: String

    public init(token: String, email: String, errors: FieldErrors = FieldErrors(), actionURL: String) {
        self.token = token
        self.actionURL = actionURL
        self.email = email
        self.errors = errors
    }
}

/// The signed-in user's own profile: details and the password change form.
public struct ProfilePage: Sendable {
    public var photoURL: String?
    public var email: String
    public var nickname: String
    public var phone: String
    public var errors: FieldErrors
    /// The notification level of rooms the person did not set, and where it is changed.
    public var notifyChoices: [NotifyChoice] = []
    public var notifyURL = ""
    /// Whether mail is sent at all, and whether this person gets the digest of what they missed.
    public var mailEnabled = false
    public var mailDigest = true
    public var mailURL = ""
    /// The custom status form: where it posts, what it holds, how long it lasts, and the
    /// status as others see it now (empty: none).
    public var statusURL = ""
    public var statusEmoji = ""
    public var statusText = ""
    public var statusDurations: [NotifyChoice] = []
    public var statusNow = ""
    public var hasStatus = false
    /// Two-step sign-in is on (the card links to `/profile/2fa` either way).
    public var twoStepOn = false
    /// With mail: the address is not confirmed yet, and where to ask for the link again.
    public var emailUnconfirmed = false
    public var confirmURL = ""
    /// With the apps' API on (or sign-ins left from when it was): the apps signed in to the
    /// account, each with a way to end it.
    public var appsShown = false
    public var appSignIns: [AppSignInRow] = []
    /// With two-step sign-in on: the account's app passwords, where one is made, and a new one
    /// shown this once (grouped for typing).
    public var appPasswordsShown = false
    public var appPasswords: [AppSignInRow] = []
    public var appPasswordURL = ""
    public var newAppPassword: String?

    public init(email: String, nickname: String, phone: String, errors: FieldErrors = FieldErrors()) {
        self.email = email
        self.nickname = nickname
        self.phone = phone
        self.errors = errors
    }
}

/// One app signed in to the account (`/v1`), on the profile page.
public struct AppSignInRow: Sendable {
    /// What the app said it is (its `User-Agent`), or a placeholder.
    public var client: String
    /// When it signed in and was last used: ISO 8601 for `<time datetime>`, and as text.
    public var signedInAt: String
    public var signedInText: String
    /// When it was last used; nil: never (an app password not typed in yet).
    public var usedAt: String?
    public var usedText: String?
    /// Where its "sign out" form posts.
    public var endURL: String

    public init(client: String, signedInAt: String, signedInText: String, usedAt: String?, usedText: String?, endURL: String) {
        (self.client, self.signedInAt, self.signedInText, self.usedAt, self.usedText, self.endURL) =
            (client, signedInAt, signedInText, usedAt, usedText, endURL)
    }
}

/// A member's profile, as someone who shares a workspace with them sees it.
public struct UserPage: Sendable {
    public var id: Int64
    public var nickname: String
    public var isViewer: Bool
    public var email: String
    public var phone: String?
    public var photoURL: String?
    /// Their custom status, as shown.
    public var status: String?
    /// The letters and colour in place of a photo (`AvatarFace`).
    public var initial: String
    public var tone: Int
    /// The workspaces the viewer shares with them, each with a way to message them there.
    public var workspaces: [SharedWorkspace]

    public init(id: Int64, nickname: String, isViewer: Bool, email: String = "", phone: String? = nil, photoURL: String? = nil,
                workspaces: [SharedWorkspace] = []) {
        self.id = id
        self.nickname = nickname
        self.isViewer = isViewer
        self.email = email
        self.phone = phone
        self.photoURL = photoURL
        self.initial = AvatarFace.initials(nickname)
        self.tone = AvatarFace.tone(id)
        self.workspaces = workspaces
    }
}

/// A workspace two people share, on one's profile page.
public struct SharedWorkspace: Sendable {
    public var name: String
    public var url: String
    /// Their direct messages in this workspace.
    public var messageURL: String
    /// "Message Mina in Design", for the button whose visible text is only "Message".
    public var messageLabel: String

    public init(name: String, url: String, messageURL: String, messageLabel: String) {
        self.name = name
        self.url = url
        self.messageURL = messageURL
        self.messageLabel = messageLabel
    }
}

/// Messages beside form fields, keyed by the field's name. Templates read them as
/// `page.errors.email` etc.; only the fields wsx forms have are listed, so a typo fails to compile.
public struct FieldErrors: Sendable, Equatable {
    public var email: String?
    public var nickname: String?
    public var phone: String?
    public var password: String?
    public var passwordConfirm: String?
    public var currentPassword: String?
    public var name: String?
    public var description: String?
    public var content: String?
    public var statusEmoji: String?
    public var statusText: String?
    /// The people a conversation is started with.
    public var member: String?
    /// A join link's use limit.
    public var maxUses: String?
    /// A two-step sign-in code.
    public var code: String?

    public init() {}

    /// Whether any field has a message.
    public var isEmpty: Bool { self == FieldErrors() }
}
