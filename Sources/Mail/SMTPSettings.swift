import Foundation

/// Where and how mail is handed over: `--smtp-url smtp://[user:pass@]host[:port]` (STARTTLS
/// whenever the server offers it; credentials are never sent without TLS) or `smtps://…`
/// (TLS from the first byte), with `--smtp-ca-file` to trust a private certificate authority.
public struct SMTPSettings: Sendable, Equatable {
    public enum Security: Sendable, Equatable {
        /// Plain connection, upgraded with STARTTLS when the server offers it.
        case startTLSWhenOffered
        /// TLS from the start (`smtps://`, usually port 465).
        case implicitTLS
    }

    public var host: String
    public var port: Int
    public var username: String?
    public var password: String?
    public var security: Security
    /// PEM file of the certificate authorities to trust instead of the system's.
    public var trustedCAFile: String?
    /// The name this server gives itself in `EHLO`.
    public var heloName = "localhost"
    /// How long connecting may take.
    public var connectTimeout: Duration = .seconds(10)
    /// How long each step may take: the greeting, each command's reply (the message's too). A
    /// stalled server used to hold the queue a minute per message and read as a closed connection.
    public var stepTimeout: Duration = .seconds(30)

    public init(host: String, port: Int, username: String? = nil, password: String? = nil, security: Security,
                trustedCAFile: String? = nil) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.security = security
        self.trustedCAFile = trustedCAFile
    }

    /// Reads `smtp://[user:pass@]host[:port]` or `smtps://…`; user and password may be
    /// percent-encoded.
    public static func parse(_ text: String) throws -> SMTPSettings {
        guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(),
              let host = url.host, !host.isEmpty else {
            throw SMTPError.badURL(text)
        }
        let security: Security
        switch scheme {
        case "smtp": security = .startTLSWhenOffered
        case "smtps": security = .implicitTLS
        default: throw SMTPError.badURL(text)
        }
        guard url.path.isEmpty || url.path == "/", url.query == nil else { throw SMTPError.badURL(text) }
        let port = url.port ?? (security == .implicitTLS ? 465 : 25)
        guard (1...65535).contains(port) else { throw SMTPError.badURL(text) }
        let user = url.percentEncodedUser.flatMap { $0.removingPercentEncoding }
        let password = url.percentEncodedPassword.flatMap { $0.removingPercentEncoding }
        guard (user == nil) == (password == nil) else { throw SMTPError.badURL(text) }
        return SMTPSettings(host: host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host, port: port,
                            username: user, password: password, security: security)
    }
}
