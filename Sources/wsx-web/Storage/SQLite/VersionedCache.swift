import Foundation
import GRDB
import Synchronization

/// Results of database reads, kept while what they read is unchanged (`ReadRegion`), so a
/// repeated read can be answered from memory and is never answered with anything a fresh read
/// would not give.
///
/// The cache learns what it depends on from its own reads: each read runs in a `ReadScope`
/// that records the region of its statements and the other caches it was answered from. A
/// value is stored with the region's version taken *before* the read that produced it, so a
/// commit that lands meanwhile makes it stale at once; a read that reached something the
/// region did not cover yet is not kept. Only entries of the current version are kept: the
/// first store after a change drops the rest, so memory holds at most `capacity` values of now.
/// `lifetime` bounds how long a value is kept at all (memory, and values that depend on the time,
/// like a status that expires); freshness against writes never depends on it.
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

    let region: ReadRegion
    let clock: WallClock
    let capacity: Int
    let lifetime: TimeInterval
    private let state = Mutex(State())

    init(region: ReadRegion, clock: WallClock, capacity: Int, lifetime: TimeInterval = 10) {
        self.region = region
        self.clock = clock
        self.capacity = capacity
        self.lifetime = lifetime
    }

    /// A cache of `database`'s reads, with a region of its own named `name`.
    convenience init(_ name: String, of database: AppDatabase, clock: WallClock, capacity: Int) {
        self.init(region: database.cacheRegion(name), clock: clock, capacity: capacity)
    }

    /// The value stored for `key`, unless what it was read from changed since (or it is older
    /// than `lifetime`). A value found counts as read by the read under way (`ReadScope`).
    func value(for key: Key) -> Value? {
        let current = region.version, now = clock.now()
        let found = state.withLock { state -> Value? in
            guard let entry = state.entries[key] else { return nil }
            guard state.version == current, entry.storedAt <= now, now.timeIntervalSince(entry.storedAt) < lifetime else {
                state.entries[key] = nil
                return nil
            }
            return entry.value
        }
        if found != nil { ReadScope.current?.include(region) }
        return found
    }

    /// The value kept for `key`, or else what `read` reads in a read of `database` off the
    /// loop, kept for next time.
    func value(for key: Key, from database: AppDatabase,
               orRead read: @escaping @Sendable (Database) throws -> Value) async throws -> Value {
        if let value = value(for: key) { return value }
        // A read of a `Value` always answers one.
        return try await database.readOffLoop { db in try self.readAndKeep(key, db, read)! }
    }

    /// The value kept for `key`, or else what `read` reads in `db`, kept for next time. Without a
    /// database (`db` nil) only memory answers: a value not kept throws `NotKeptInMemory`.
    func value(for key: Key, in db: Database?, orRead read: (Database) throws -> Value) throws -> Value {
        if let value = value(for: key) { return value }
        guard let db else { throw NotKeptInMemory() }
        return try readAndKeep(key, db, read)!
    }

    /// What `read` reads in a read of `database` now, whatever is kept; kept for next time
    /// unless nil. On the caller's thread: for an event loop's own handler, which cannot wait.
    func fresh(for key: Key, from database: AppDatabase, read: (Database) throws -> Value?) throws -> Value? {
        try database.read { db in try readAndKeep(key, db, read) }
    }

    /// The same, read off the loop.
    func fresh(for key: Key, from database: AppDatabase,
               read: @escaping @Sendable (Database) throws -> Value?) async throws -> Value? {
        try await database.readOffLoop { db in try self.readAndKeep(key, db, read) }
    }

    /// Reads `key`'s value in `db`, recording what the read depended on, and keeps it unless that
    /// was new to the region (or nil).
    private func readAndKeep(_ key: Key, _ db: Database, _ read: (Database) throws -> Value?) throws -> Value? {
        let readAt = region.version
        // Inside a read transaction that began before the region's last change (another cache
        // read first), the snapshot may predate it: the value is right for this read, but not
        // one to keep at the version of now.
        let snapshotIsCurrent = ReadTransaction.startedAt.map { region.lastChange <= $0 } ?? true
        let scope = ReadScope(for: region)
        let outer = ReadScope.current
        let (value, statements) = try scope.recording(db) {
            try ReadScope.$current.withValue(scope) { try read(db) }
        }
        scope.add(statements)
        outer?.include(region)
        if let value, snapshotIsCurrent { store(value, for: key, readAt: readAt, readIn: scope) }
        return value
    }

    /// Keeps `value`, produced by a read that ran in `scope` after `readAt` was taken from
    /// `region.version`, unless the read depended on something the region did not cover yet.
    func store(_ value: Value, for key: Key, readAt: UInt64, readIn scope: ReadScope) {
        if !scope.teach(region) { store(value, for: key, readAt: readAt) }
    }

    /// Keeps `value`, read from the database after `readAt` was taken from `region.version`.
    func store(_ value: Value, for key: Key, readAt: UInt64) {
        let now = clock.now()
        // The entries dropped are handed out of the lock and released there: freeing a few
        // hundred kept pages under it made the other core's requests wait.
        _ = state.withLock { state -> [Key: Entry] in
            // Already stale: a commit landed while the value was being read.
            guard readAt == region.version else { return [:] }
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

/// When the read transaction under way began, as the number of commits then
/// (`RegionVersions.commits`): its snapshot holds every commit up to it, perhaps not later ones.
enum ReadTransaction {
    @TaskLocal static var startedAt: UInt64?
}
