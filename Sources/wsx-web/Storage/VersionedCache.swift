import Foundation
import GRDB
import Synchronization

/// Results of database reads, kept while the database is unchanged (`DataVersion`) and for at
/// most `lifetime`, so a repeated read can be answered from memory and is never answered with
/// anything a fresh read would not give.
///
/// Store a result with the version read *before* the read that produced it; a commit that lands
/// meanwhile makes the entry stale at once. Only entries of the current version are kept: the
/// first store after a commit drops the rest, so memory holds at most `capacity` values of now.
final class VersionedCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Entry {
        let storedAt: Date
        let value: Value
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        /// The version every entry in `entries` was stored at.
        var version: UInt64 = 0
    }

    let version: DataVersion
    let clock: WallClock
    let capacity: Int
    let lifetime: TimeInterval
    private let state = Mutex(State())

    /// `lifetime` defaults to 10 s: how long a change made by another process on the same file
    /// (which `version` does not count) can go unseen.
    init(version: DataVersion, clock: WallClock, capacity: Int, lifetime: TimeInterval = 10) {
        self.version = version
        self.clock = clock
        self.capacity = capacity
        self.lifetime = lifetime
    }

    /// The value stored for `key`, unless the database changed or `lifetime` passed since.
    func value(for key: Key) -> Value? {
        let current = version.current, now = clock.now()
        return state.withLock { state in
            guard let entry = state.entries[key] else { return nil }
            guard state.version == current, entry.storedAt <= now, now.timeIntervalSince(entry.storedAt) < lifetime else {
                state.entries[key] = nil
                return nil
            }
            return entry.value
        }
    }

    /// The value kept for `key`, or else what `read` reads from the database, kept for next time.
    func value(for key: Key, orRead read: () throws -> Value) rethrows -> Value {
        if let value = value(for: key) { return value }
        return try readAndKeep(key, read)
    }

    /// The value kept for `key`, or else what `read` reads in `db`, kept for next time. Without a
    /// database (`db` nil) only memory answers: a value not kept throws `NotKeptInMemory`.
    func value(for key: Key, in db: Database?, orRead read: (Database) throws -> Value) throws -> Value {
        if let value = value(for: key) { return value }
        guard let db else { throw NotKeptInMemory() }
        return try readAndKeep(key) { try read(db) }
    }

    private func readAndKeep(_ key: Key, _ read: () throws -> Value) rethrows -> Value {
        let readAt = version.current
        let value = try read()
        store(value, for: key, readAt: readAt)
        return value
    }

    /// Keeps `value`, read from the database after `readAt` was taken from `version.current`.
    func store(_ value: Value, for key: Key, readAt: UInt64) {
        let now = clock.now()
        // The entries dropped are handed out of the lock and released there: freeing a few
        // hundred kept pages under it made the other core's requests wait.
        _ = state.withLock { state -> [Key: Entry] in
            // Already stale: a commit landed while the value was being read.
            guard readAt == version.current else { return [:] }
            var dropped: [Key: Entry] = [:]
            if state.version != readAt {
                swap(&dropped, &state.entries)
                state.version = readAt
            }
            if state.entries.count >= capacity, state.entries[key] == nil {
                dropped = state.entries
                state.entries = dropped.filter { now.timeIntervalSince($0.value.storedAt) < lifetime }
                if state.entries.count >= capacity { state.entries = [:] }
            }
            state.entries[key] = Entry(storedAt: now, value: value)
            return dropped
        }
    }

    /// How many values are kept now.
    var count: Int { state.withLock { $0.entries.count } }
}

/// Thrown by a read asked to answer from memory alone when what it needs is not kept: the
/// caller reads again in a transaction.
struct NotKeptInMemory: Error {}
