import Foundation
import ServiceLifecycle
import Synchronization

/// Wakes one waiting task: `ring()` ends the current (or the next) `wait`, which otherwise ends
/// after its time. For a background worker that sleeps until its next job is due or new work
/// arrives, whichever comes first.
final class Doorbell: Sendable {
    private struct State {
        var rung = false
        var waiter: CheckedContinuation<Void, Never>?
        var cancelled = false
    }

    private let state = Mutex(State())

    func ring() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.rung = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// A queue's worker: a `round` now, then another at each ring or when the next job is due
    /// (`nextDue`, read after each round), until the server shuts down gracefully.
    func serve(clock: WallClock, nextDue: @escaping @Sendable () throws -> Date?, round: @escaping @Sendable () async -> Void) async {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await round()
                await self.wait(until: (try? nextDue()) ?? nil, now: clock.now())
            }
        }
    }

    /// A queue's worker between rounds: returns at the first ring, or when `next` (the next
    /// job's time, if any) comes, or after an hour at most.
    private func wait(until next: Date?, now: Date) async {
        let seconds = next.map { max(0.05, $0.timeIntervalSince(now)) } ?? 3600
        await wait(upTo: .milliseconds(Int(min(seconds, 3600) * 1000)))
    }

    /// Returns at the first ring (one rung before counts), or after `duration`.
    func wait(upTo duration: Duration) async {
        state.withLock { $0.cancelled = false }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.waitForRing() }
            group.addTask { try? await Task.sleep(for: duration) }
            await group.next()
            group.cancelAll()
        }
    }

    private func waitForRing() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.rung || state.cancelled {
                        state.rung = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                state.cancelled = true
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }
}
