/// Why a message could not be handed over. `isPermanent` failures (the server refused the
/// recipient or the message for good) are not tried again. The description is for logs: it may
/// name the mail server's host and carry its reply; people are told only the `reason`.
public enum SMTPError: Error, CustomStringConvertible, Sendable {
    case badURL(String)
    /// The server answered `code` where the conversation needed something else.
    case refused(step: String, code: Int, text: String)
    /// Credentials are configured but the server offered no TLS: they were not sent.
    case credentialsWithoutTLS
    /// The server does not take the login methods we speak (PLAIN, LOGIN).
    case noLoginMethod
    /// No connection could be made (refused, no route, no such host, or no answer to it).
    case unreachable(String)
    case connectionClosed(step: String)
    /// The server did not answer `step` within the time for one step.
    case timedOut(step: String)
    case tls(String)

    public var description: String {
        switch self {
        case .badURL(let text): "not an SMTP address (smtp://[user:pass@]host[:port] or smtps://…): \(text)"
        case .refused(let step, let code, let text): "the mail server answered \(code) to \(step): \(text)"
        case .credentialsWithoutTLS: "the mail server offers no STARTTLS, so the login was not sent over a plain connection"
        case .noLoginMethod: "the mail server offers no login method wsx speaks (PLAIN or LOGIN)"
        case .unreachable(let why): "the mail server could not be reached: \(why)"
        case .connectionClosed(let step): "the mail server closed the connection during \(step)"
        case .timedOut(let step): "the mail server did not answer \(step) in time"
        case .tls(let reason): "TLS with the mail server failed: \(reason)"
        }
    }

    /// A 5xx answer to the recipient or the message: sending again would get the same.
    public var isPermanent: Bool {
        if case .refused(let step, let code, _) = self { return code >= 500 && (step == "RCPT TO" || step == "DATA" || step == "MAIL FROM") }
        return false
    }

    /// What went wrong, in terms a person can act on without knowing the server's insides.
    public var reason: SMTPFailureReason {
        switch self {
        case .refused(let step, _, _) where step.hasPrefix("AUTH"): .login
        case .refused: .refused
        case .credentialsWithoutTLS, .noLoginMethod: .login
        case .unreachable, .badURL: .unreachable
        case .connectionClosed: .closed
        case .timedOut: .timedOut
        case .tls: .tls
        }
    }
}

/// Why mail was not delivered, as wsx tells the people concerned (never the mail server's
/// host, port or reply text, which stay in the server's log).
public enum SMTPFailureReason: String, Sendable, CaseIterable {
    /// The mail server answered no: to the recipient, the sender or the message.
    case refused
    /// No connection to the mail server.
    case unreachable
    /// The mail server stopped answering.
    case timedOut = "timed_out"
    /// The mail server hung up.
    case closed
    /// TLS with the mail server failed.
    case tls
    /// The mail server did not take wsx's login.
    case login
}
