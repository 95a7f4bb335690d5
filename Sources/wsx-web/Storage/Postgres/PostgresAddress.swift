import Foundation

/// Where a PostgreSQL database is, from a `postgres://user[:password]@host[:port]/db[?sslmode=…]`
/// address (`--database`, env `WSX_DATABASE`). postgres-nio takes host, user and TLS separately, so
/// the address is read here: user, password and database name percent-decoded, an IPv6 host in
/// brackets, port 5432 by default.
///
/// `sslmode` as libpq reads it, for the modes wsx supports: absent or `disable`, no TLS (what libpq's
/// default `prefer` ends with on a server without TLS); `prefer`, TLS when the server offers it;
/// `require`, TLS without checking the certificate; `verify-ca`, TLS with a certificate signed by a
/// trusted authority; `verify-full`, that and the certificate naming the host.
struct PostgresAddress: Equatable, Sendable, CustomStringConvertible {
    enum TLSMode: String, Sendable {
        case disable, prefer, require, verifyCA = "verify-ca", verifyFull = "verify-full"
    }

    let host: String
    let port: Int
    let user: String
    let password: String?
    let database: String
    let tls: TLSMode

    /// Why an address was refused, said so an operator can fix it (never repeating the password).
    struct Problem: Error, CustomStringConvertible, Equatable {
        let description: String
    }

    init(host: String, port: Int = 5432, user: String, password: String? = nil, database: String, tls: TLSMode = .disable) {
        (self.host, self.port, self.user, self.password, self.database, self.tls) = (host, port, user, password, database, tls)
    }

    init(_ text: String) throws {
        let scheme = ["postgres://", "postgresql://"].first { text.lowercased().hasPrefix($0) }
        guard let scheme else {
            throw Problem(description: "a database address starts with postgres:// (postgres://user:password@host:5432/db)")
        }
        var rest = Substring(text.dropFirst(scheme.count))
        var query: Substring = ""
        if let mark = rest.firstIndex(of: "?") { (query, rest) = (rest[rest.index(after: mark)...], rest[..<mark]) }
        guard let slash = rest.firstIndex(of: "/") else { throw Problem(description: "the database address names no database (…/db)") }
        let authority = rest[..<slash]
        let database = try Self.decoded(rest[rest.index(after: slash)...], "database name")
        guard !database.isEmpty, !database.contains("/") else {
            throw Problem(description: "the database address names no database (…/db)")
        }
        guard let at = authority.lastIndex(of: "@") else {
            throw Problem(description: "the database address names no user (postgres://user@host/db)")
        }
        let credentials = authority[..<at], location = authority[authority.index(after: at)...]
        let user: String, password: String?
        if let colon = credentials.firstIndex(of: ":") {
            user = try Self.decoded(credentials[..<colon], "user")
            password = try Self.decoded(credentials[credentials.index(after: colon)...], "password")
        } else {
            (user, password) = (try Self.decoded(credentials, "user"), nil)
        }
        guard !user.isEmpty else { throw Problem(description: "the database address names no user (postgres://user@host/db)") }
        let (host, port) = try Self.hostAndPort(location)
        var tls = TLSMode.disable
        for pair in query.split(separator: "&") where !pair.isEmpty {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0]), value = parts.count > 1 ? String(parts[1]) : ""
            guard name == "sslmode" else {
                throw Problem(description: "the database address has an option wsx does not know: \(name) (only sslmode)")
            }
            guard let mode = TLSMode(rawValue: value) else {
                throw Problem(description: "sslmode \(value) is not one of disable, prefer, require, verify-ca, verify-full")
            }
            tls = mode
        }
        self.init(host: host, port: port, user: user, password: password, database: database, tls: tls)
    }

    /// The address with the password left out, for logs and messages.
    var description: String {
        let credentials = password == nil ? Self.encoded(user) : "\(Self.encoded(user)):***"
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "postgres://\(credentials)@\(shownHost):\(port)/\(Self.encoded(database))" + (tls == .disable ? "" : "?sslmode=\(tls.rawValue)")
    }

    private static func hostAndPort(_ location: Substring) throws -> (String, Int) {
        var host = location, portText: Substring?
        if location.hasPrefix("[") {
            guard let close = location.firstIndex(of: "]") else { throw Problem(description: "the database address's IPv6 host has no closing ]") }
            host = location[location.index(after: location.startIndex)..<close]
            let after = location[location.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw Problem(description: "the database address has text after its host: \(after)") }
                portText = after.dropFirst()
            }
        } else if let colon = location.lastIndex(of: ":") {
            (host, portText) = (location[..<colon], location[location.index(after: colon)...])
        }
        guard !host.isEmpty else { throw Problem(description: "the database address names no host (postgres://user@host/db)") }
        guard let portText else { return (String(host), 5432) }
        guard let port = Int(portText), (1...65_535).contains(port) else {
            throw Problem(description: "the database address's port is not a number from 1 to 65535: \(portText)")
        }
        return (String(host), port)
    }

    private static func decoded(_ text: Substring, _ what: String) throws -> String {
        guard let decoded = String(text).removingPercentEncoding else {
            throw Problem(description: "the database address's \(what) has a broken %-escape")
        }
        return decoded
    }

    private static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlUserAllowed.subtracting(CharacterSet(charactersIn: ":@/"))) ?? text
    }
}
