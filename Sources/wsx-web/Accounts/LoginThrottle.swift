import Foundation

/// Slows down password guessing without letting a guesser lock anyone out.
///
/// Failed sign-ins are counted three ways within a window (`--login-failure-window`):
/// - per account and address, strictly (`--login-max-failures`, 10): one guesser, one account;
/// - per account, loosely (`--login-max-failures-per-account`, 100), for guessers spread over
///   many addresses. A browser that has signed in to the account before (`DeviceCookie`) is
///   not held by it, so a flood of guesses cannot lock the owner out;
/// - per address (`--login-max-failures-per-ip`, 100), for one address trying many accounts.
/// Ten wrong passwords from one place used to lock the account for everyone for 180 s.
///
/// Each attempt is reserved before its password is checked (`AttemptLimiter`): a refused one
/// hashes nothing and answers 429 with `Retry-After`.
struct LoginThrottle: Sendable {
    /// The bounds, set by flags.
    struct Limits: Sendable {
        var perAccountAndAddress: Int
        var perAccount: Int
        var perAddress: Int
        var window: TimeInterval

        static let standard = Limits(perAccountAndAddress: 10, perAccount: 100, perAddress: 100, window: 180)
    }

    let limits: Limits
    let ledger: AttemptLimiter
    /// The longest e-mail address (RFC 5321): an account name is cut to it before it is a key.
    static let maximumAccountBytes = 254

    /// Counting in memory, or across the nodes on `postgres`.
    init(limits: Limits, clock: WallClock, postgres: PostgresBackend? = nil) {
        self.limits = limits
        ledger = AttemptLimiter(clock: clock, postgres: postgres)
    }

    /// Reserves a sign-in attempt for `account` from `address`; `trustedDevice` when the browser
    /// has signed in to that account before.
    func begin(account: String, address: String, trustedDevice: Bool) async -> AttemptLimiter.Verdict {
        await ledger.reserve(checks(account: account, address: address, trustedDevice: trustedDevice))
    }

    /// The attempt's outcome: a failure counts; a success forgets this address's failures for
    /// the account (the owner's own typos), not the account's (someone else's guesses).
    func end(_ ticket: AttemptLimiter.Ticket, account: String, address: String, succeeded: Bool) async {
        await ledger.settle(ticket, counted: !succeeded)
        if succeeded { await ledger.clear([Self.pairKey(account, AddressBucket.key(address))]) }
    }

    private func checks(account rawAccount: String, address rawAddress: String, trustedDevice: Bool) -> [AttemptLimiter.Check] {
        let account = Self.capped(rawAccount), address = AddressBucket.key(rawAddress)
        var checks = [
            AttemptLimiter.Check(key: Self.pairKey(account, address), rule: .init(limit: limits.perAccountAndAddress, window: limits.window)),
            AttemptLimiter.Check(key: "address:" + address, rule: .init(limit: limits.perAddress, window: limits.window)),
        ]
        if !trustedDevice {
            checks.append(.init(key: "account:" + account, rule: .init(limit: limits.perAccount, window: limits.window)))
        }
        return checks
    }

    private static func pairKey(_ account: String, _ address: String) -> String {
        "pair:" + capped(account) + "\u{0}" + address
    }

    /// At most `maximumAccountBytes` of `account`, cut on a character boundary.
    static func capped(_ account: String) -> String {
        guard account.utf8.count > maximumAccountBytes else { return account }
        var bytes = 0
        return String(account.prefix { bytes += $0.utf8.count; return bytes <= maximumAccountBytes })
    }
}

/// Bounds sign-ups per address (`--signup-max-per-ip`, 20 an hour: a whole office behind one NAT
/// signs up on its first day). Every sign-up is a bcrypt hash and a new account with coins; 120
/// in parallel made a normal sign-in take 12 s. Sign-ups through an invitation do not count.
struct SignupLimiter: Sendable {
    let rule: AttemptLimiter.Rule
    private let ledger: AttemptLimiter

    static let standard = AttemptLimiter.Rule(limit: 20, window: 3600)

    init(rule: AttemptLimiter.Rule, clock: WallClock, postgres: PostgresBackend? = nil) {
        self.rule = rule
        ledger = AttemptLimiter(clock: clock, postgres: postgres)
    }

    func begin(address: String) async -> AttemptLimiter.Verdict {
        await ledger.reserve([.init(key: AddressBucket.key(address), rule: rule)])
    }

    /// A sign-up that was made counts; one refused (a taken email, a short password) does not.
    func end(_ ticket: AttemptLimiter.Ticket, created: Bool) async {
        await ledger.settle(ticket, counted: created)
    }
}
