import Foundation
import Synchronization

/// Where services read the current time. Production uses the system clock; tests hand in a
/// `ManualClock` to step over expiry windows without sleeping.
struct WallClock: Sendable {
    let now: @Sendable () -> Date

    /// The system clock in whole milliseconds: what SQLite keeps of a date. A time answered
    /// when something is made is then the time read back later (the apps compare them), on
    /// either backend.
    static let system = WallClock {
        Date(timeIntervalSince1970: (Date().timeIntervalSince1970 * 1000).rounded(.down) / 1000)
    }
}

/// A clock that stands still until moved; for tests of expiry and rate windows.
final class ManualClock: Sendable {
    private let current: Mutex<Date>

    /// Where test clocks start (2027-01-15), so fakes of outside services can agree on "now".
    static let defaultStart = Date(timeIntervalSince1970: 1_800_000_000)

    init(_ start: Date = ManualClock.defaultStart) {
        current = Mutex(start)
    }

    func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    var wallClock: WallClock {
        WallClock { [self] in self.current.withLock { $0 } }
    }
}
