import Foundation

/// Who may make an account on the sign-up form (`--signup`, `--signup-domains`).
///
/// - `invite` (the default, as Mattermost and Zulip ship): the server's first account, and
///   people who come through an invitation or a workspace's open join link. A stranger used to
///   sign up, get ten coins and buy a workspace with file hosting.
/// - `domain`: also anyone whose address is at one of the listed domains (the company's own);
///   the address is confirmed by mail, so the server needs `--smtp-url`.
/// - `open`: anyone (a public server; `make run` and the test suites that sign people up in bulk).
///
/// Invitations and join links always work: they are how the invited get in.
struct SignupPolicy: Sendable, Equatable {
    enum Mode: String, Sendable, CaseIterable {
        case open, invite, domain
    }

    var mode = Mode.invite
    /// Lowercased domains (`example.com`) whose addresses may sign up in `domain` mode.
    var domains: [String] = []

    /// Why a sign-up on the form is refused, if it is.
    enum Refusal: Sendable, Equatable {
        /// Sign-up is by invitation only.
        case invitationOnly
        /// The address is not at one of the allowed domains.
        case otherDomain
    }

    /// Whether the form is open to strangers at all (the page says so before anyone types).
    var isOpen: Bool { mode == .open }

    /// Whether `email` may sign up on the form; `firstAccount` when the server has none yet,
    /// `invited` when the person came through an invitation or an open join link.
    func refusal(email: String, firstAccount: Bool, invited: Bool) -> Refusal? {
        if firstAccount || invited { return nil }
        switch mode {
        case .open: return nil
        case .invite: return .invitationOnly
        case .domain: return allowsDomain(of: email) ? nil : .otherDomain
        }
    }

    /// Whether the address's domain is one of the listed ones.
    func allowsDomain(of email: String) -> Bool {
        guard let at = email.lastIndex(of: "@") else { return false }
        return domains.contains(email[email.index(after: at)...].lowercased())
    }

    /// The line the server logs at start, for operators.
    var summary: String {
        switch mode {
        case .open: "sign-up is open to anyone (--signup open)"
        case .invite: "sign-up is by invitation: the first account, invitations and join links only (--signup invite)"
        case .domain: "sign-up is open to addresses at \(domains.joined(separator: ", ")), and by invitation (--signup domain)"
        }
    }
}

/// Who must use two-step sign-in (`--require-2fa`).
enum TwoStepRequirement: String, Sendable, CaseIterable {
    case off, admins, everyone

    /// Whether `user` must turn it on before using the server.
    func applies(to user: User) -> Bool {
        switch self {
        case .off: false
        case .admins: user.isAdmin
        case .everyone: true
        }
    }
}
