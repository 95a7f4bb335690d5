import Foundation

/// Slows down password guessing: after too many failed sign-ins in a window, further attempts
/// for that account (or from that address) are refused until the oldest failure leaves the window.
///
/// Kept in memory: a restart forgets, which is acceptable for a single-process server. The number
/// of tracked keys is bounded so a flood of made-up emails cannot grow memory without end.
actor LoginThrottle {
    /// The bounds, set by flags (`--login-max-failures`, `--login-max-failures-per-ip`,
    /// `--login-failure-window`).
    struct Limits: Sendable {
        var perAccount: Int
        var perAddress: Int
        var window: TimeInterval

        static let standard = Limits(perAccount: 10, perAddress: 100, window: 180)
    }

    private let limits: Limits
    private let clock: WallClock
    private var failuresByAccount: [String: [Date]] = [:]
    private var failuresByAddress: [String: [Date]] = [:]
    private static let maximumTrackedKeys = 100_000

    init(limits: Limits, clock: WallClock) {
        self.limits = limits
        self.clock = clock
    }

    /// Seconds until this account and address may try again; nil when they may try now.
    func retryAfter(account: String, address: String) -> Int? {
        let now = clock.now()
        let waits = [
            wait(failuresByAccount[account], limit: limits.perAccount, now: now),
            wait(failuresByAddress[address], limit: limits.perAddress, now: now),
        ].compactMap { $0 }
        return waits.max()
    }

    func recordFailure(account: String, address: String) {
        let now = clock.now()
        if failuresByAccount.count + failuresByAddress.count > Self.maximumTrackedKeys { prune(now: now) }
        let window = limits.window
        let recent = { (dates: [Date]?) in (dates ?? []).filter { now.timeIntervalSince($0) < window } + [now] }
        failuresByAccount[account] = recent(failuresByAccount[account])
        failuresByAddress[address] = recent(failuresByAddress[address])
    }

    /// A successful sign-in clears the account's failures (not the address's).
    func recordSuccess(account: String) {
        failuresByAccount[account] = nil
    }

    private func wait(_ failures: [Date]?, limit: Int, now: Date) -> Int? {
        guard let failures else { return nil }
        let recent = failures.filter { now.timeIntervalSince($0) < limits.window }
        guard recent.count >= limit, let oldest = recent.first else { return nil }
        return max(1, Int((limits.window - now.timeIntervalSince(oldest)).rounded(.up)))
    }

    private func prune(now: Date) {
        let window = limits.window
        func keepRecent(_ table: inout [String: [Date]]) {
            table = table.compactMapValues { dates in
                let recent = dates.filter { now.timeIntervalSince($0) < window }
                return recent.isEmpty ? nil : recent
            }
        }
        keepRecent(&failuresByAccount)
        keepRecent(&failuresByAddress)
    }
}
