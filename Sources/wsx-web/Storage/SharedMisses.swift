import Synchronization

/// Requests that miss the same kept read at the same moment read it once.
///
/// After a post, every open page of the room asks for what the post changed (its messages, the
/// reader's counts) at once; each would read the same rows in its own transaction on the
/// reader threads (about ten reads of the channel page per post with 16 readers asking,
/// counted with a probe), where the event loops, which ran reads themselves before, let two
/// at most. So the first miss for a key reads, and the others for that key wait for it to
/// end, then ask memory again: what the first read kept answers them when nothing changed
/// meanwhile. The key only says who waits for whom; an answer always comes from the cache's
/// own check of what changed, so a key that is too coarse costs a wait, never a stale value.
final class SharedMisses: Sendable {
    private let waiting = Mutex<[Key: [CheckedContinuation<Bool, Never>]]>([:])
    /// How many times a request waits for another's read before it reads itself: reads that a
    /// commit made stale before they ended keep nothing, and a request is not kept waiting
    /// behind a run of them.
    private let turns: Int

    init(turns: Int = 3) { self.turns = turns }

    /// A key of any type; made only from keys that are `Sendable` themselves.
    private struct Key: Hashable, @unchecked Sendable {
        let base: AnyHashable
    }

    /// What `memory` answers, or else, when it throws `NotKeptInMemory`, what `read` reads: the
    /// first request for `key` reads, those arriving while it reads wait for it and ask `memory`
    /// again.
    func answer<T>(_ key: some Hashable & Sendable, memory: () throws -> T, read: () async throws -> T) async throws -> T {
        let key = Key(base: AnyHashable(key))
        for _ in 0..<turns {
            do { return try memory() } catch is NotKeptInMemory {}
            guard await waitedForAnother(key) else {
                defer { finish(key) }
                return try await read()
            }
        }
        do { return try memory() } catch is NotKeptInMemory {}
        return try await read()
    }

    /// Whether a read for `key` was under way (this waited for it to end); if not, this request's
    /// read is now the one under way, and it calls `finish(_:)` when done.
    private func waitedForAnother(_ key: Key) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let leads = waiting.withLock { waiting in
                guard waiting[key] != nil else {
                    waiting[key] = []
                    return true
                }
                waiting[key]!.append(continuation)
                return false
            }
            if leads { continuation.resume(returning: false) }
        }
    }

    private func finish(_ key: Key) {
        let waiters = waiting.withLock { $0.removeValue(forKey: key) } ?? []
        for waiter in waiters { waiter.resume(returning: true) }
    }

    /// How many keys are being read now (tests).
    var underWay: Int { waiting.withLock { $0.count } }
    /// How many requests wait for another's read now (tests).
    var waiters: Int { waiting.withLock { $0.values.reduce(0) { $0 + $1.count } } }
}
