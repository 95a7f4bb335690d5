import Foundation
import Synchronization

/// Where people reach this server, for the links it shows or prints: `--base-url`, else the
/// documented `http://localhost:PORT`. Never a request's `Host` header: anyone can send any
/// host, and an invitation link built from it pointed wherever the request said.
final class SiteAddress: Sendable {
    /// `--base-url`, without a trailing slash.
    let configured: String?
    private let port: Mutex<Int>

    init(configured: String?, port: Int) {
        self.configured = configured
        self.port = Mutex(port)
    }

    /// The port the server listens on, once known (`--port 0` picks one).
    func listening(on port: Int) {
        self.port.withLock { $0 = port }
    }

    /// The address links start with.
    var base: String {
        configured ?? "http://localhost:\(port.withLock { $0 })"
    }

    /// The host of `base` (`chat.example.com`), as authenticator apps name the server.
    var host: String {
        URLComponents(string: base)?.host ?? "wsx"
    }

    /// Whether the operator said where the server is reached; pages that show a link say to
    /// set `--base-url` when not.
    var isConfigured: Bool { configured != nil }
}
