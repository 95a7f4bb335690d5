/// Why a message could not be handed over. `isPermanent` failures (the server refused the
/// recipient or the message for good) are not tried again.
public enum SMTPError: Error, CustomStringConvertible, Sendable {
    case badURL(String)
    /// The server answered `code` where the conversation needed something else.
    case refused(step: String, code: Int, text: String)
    /// Credentials are configured but the server offered no TLS: they were not sent.
    case credentialsWithoutTLS
    /// The server does not take the login methods we speak (PLAIN, LOGIN).
    case noLoginMethod
    case connectionClosed
    case timedOut
    case tls(String)

    public var description: String {
        switch self {
        case .badURL(let text): "not an SMTP address (smtp://[user:pass@]host[:port] or smtps://…): \(text)"
        case .refused(let step, let code, let text): "the mail server answered \(code) to \(step): \(text)"
        case .credentialsWithoutTLS: "the mail server offers no STARTTLS, so the login was not sent over a plain connection"
        case .noLoginMethod: "the mail server offers no login method wsx speaks (PLAIN or LOGIN)"
        case .connectionClosed: "the mail server closed the connection"
        case .timedOut: "the mail server did not answer in time"
        case .tls(let reason): "TLS with the mail server failed: \(reason)"
        }
    }

    /// A 5xx answer to the recipient or the message: sending again would get the same.
    public var isPermanent: Bool {
        if case .refused(let step, let code, _) = self { return code >= 500 && (step == "RCPT TO" || step == "DATA" || step == "MAIL FROM") }
        return false
    }
}
