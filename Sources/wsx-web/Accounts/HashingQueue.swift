import Foundation

/// Where password hashing waits its turn: at most one hash per core at a time, sign-ins served
/// before sign-ups and password changes, and a bounded line. A bcrypt-12 hash is a quarter
/// second of a core; 120 sign-ups at once made a normal sign-in wait 12 s behind them. When the
/// line is full the request is refused at once (`Busy`, a 503) instead of queueing without end.
actor HashingQueue {
    /// Which line a hash waits in.
    enum Lane: Sendable {
        /// Checking a password to sign in: goes first.
        case signIn
        /// Hashing a new password (sign-up, change, reset).
        case other
    }

    /// Too many hashes waiting already.
    struct Busy: Error {}

    private let slots: Int
    private let maximumWaiting: Int
    private var running = 0
    private var signIns: [CheckedContinuation<Void, Never>] = []
    private var others: [CheckedContinuation<Void, Never>] = []

    init(slots: Int = ProcessInfo.processInfo.activeProcessorCount, maximumWaiting: Int = 64) {
        self.slots = max(1, slots)
        self.maximumWaiting = maximumWaiting
    }

    /// Runs `body` when a slot is free (and this lane's turn).
    func run<T: Sendable>(_ lane: Lane, _ body: @Sendable () async throws -> T) async throws -> T {
        if running < slots {
            running += 1
        } else {
            guard signIns.count + others.count < maximumWaiting else { throw Busy() }
            await withCheckedContinuation { continuation in
                switch lane {
                case .signIn: signIns.append(continuation)
                case .other: others.append(continuation)
                }
            }
        }
        defer { handOver() }
        return try await body()
    }

    /// Gives the finished slot to the next in line, sign-ins first.
    private func handOver() {
        if !signIns.isEmpty {
            signIns.removeFirst().resume()
        } else if !others.isEmpty {
            others.removeFirst().resume()
        } else {
            running -= 1
        }
    }

    /// Hashes waiting (for tests).
    var waiting: Int { signIns.count + others.count }
}
