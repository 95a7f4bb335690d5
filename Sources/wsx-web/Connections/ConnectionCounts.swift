import HummingbirdCore
import Logging
import NIOCore
import Synchronization

/// The server-wide connection cap: Hummingbird's listener asks it before accepting, and stops
/// accepting while it says no. Connections over the cap wait in the kernel's listen backlog
/// (nothing is opened for them), and accepting resumes as soon as one closes.
///
/// NIO accepts up to four connections per wake-up, so the cap can be passed by three; the
/// descriptor reserve is far larger.
struct ConnectionCap: AvailableConnectionsDelegate {
    let maximum: Int
    let logger: Logger
    private(set) var open = 0
    /// When the cap was last reported, so a flood logs a line a minute, not one per connection.
    private var reportedAt: NIODeadline?

    init(maximum: Int, logger: Logger) {
        self.maximum = maximum
        self.logger = logger
    }

    mutating func connectionOpened() {
        open += 1
        if open >= maximum, reportedAt.map({ NIODeadline.now() - $0 > .seconds(60) }) ?? true {
            reportedAt = .now()
            logger.warning("connection cap reached: new connections wait until one closes",
                           metadata: ["open": "\(open)", "max_connections": "\(maximum)"])
        }
    }

    mutating func connectionClosed() {
        open -= 1
    }

    func isAcceptingNewConnections() -> Bool {
        open < maximum
    }
}

/// Open connections per client address, shared by every event loop: one address may hold at
/// most `limit` at once.
final class AddressCounts: Sendable {
    let limit: Int
    private let counts = Mutex<[String: Int]>([:])

    init(limit: Int) {
        self.limit = limit
    }

    /// Counts a new connection from `address`; false (and not counted) when the address is at
    /// its limit.
    func admit(_ address: String) -> Bool {
        counts.withLock { counts in
            let current = counts[address, default: 0]
            guard current < limit else { return false }
            counts[address] = current + 1
            return true
        }
    }

    /// Forgets a connection `admit` counted.
    func release(_ address: String) {
        counts.withLock { counts in
            let remaining = counts[address, default: 1] - 1
            counts[address] = remaining > 0 ? remaining : nil
        }
    }

    /// Connections counted for `address` (for tests).
    func count(_ address: String) -> Int {
        counts.withLock { $0[address, default: 0] }
    }
}
