import GRDB
import Synchronization

/// A number that goes up with every transaction committed on the app's writer (or, when made
/// for some changes, with every commit that ran a statement that may make one of them): while it
/// stays the same, any read of the database (of what those changes touch) gives the same answer.
///
/// Caches of what was read (`VersionedCache`) note the version read *before* their database
/// read and keep the result only while the version is unchanged, so a commit racing with the
/// read makes the result stale rather than wrong. Commits by other processes on the same file
/// (the `wsx coins` command) are not counted; the caches' lifetime bounds how long they go unseen.
final class DataVersion: TransactionObserver, Sendable {
    /// Which changes count; nil for every commit.
    let counts: (@Sendable (DatabaseEventKind) -> Bool)?
    private let value = Atomic<UInt64>(0)
    /// Whether the transaction in progress made a counted change; touched on the writer's queue.
    private let changed = Atomic<Bool>(false)

    /// Counts every commit, or with `counts`, the commits that made a change it accepts.
    init(counting counts: (@Sendable (DatabaseEventKind) -> Bool)? = nil) {
        self.counts = counts
    }

    /// Counts the commits that inserted, deleted or updated rows of `tables`.
    convenience init(watching tables: Set<String>) {
        self.init { tables.contains($0.tableName) }
    }

    /// The number of counted commits so far.
    var current: UInt64 { value.load(ordering: .acquiring) }

    /// Counts a change this observer could not see: another process committed to the file.
    func countOutsideChange() {
        value.add(1, ordering: .releasing)
    }

    // Changes are counted per statement, from the kinds of change SQLite's authorizer says the
    // statement may make (those of its triggers and foreign-key actions included), as GRDB asks
    // before running each one, and never per row: a post's trigger updates every member's
    // unread count, and GRDB copies each row event made inside a savepoint (every post runs in
    // one) for whoever observes it, which was 3% of a post. A statement that turns out to change
    // nothing still counts; that only makes caches read again. `RenderedPageTests` checks that
    // GRDB asks on every run of a cached statement.
    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        if counts?(eventKind) == true { changed.store(true, ordering: .relaxed) }
        return false
    }

    func databaseDidChange(with event: DatabaseEvent) {}

    func databaseDidCommit(_ db: Database) {
        if counts == nil || changed.exchange(false, ordering: .relaxed) {
            value.add(1, ordering: .releasing)
        }
    }

    func databaseDidRollback(_ db: Database) {
        changed.store(false, ordering: .relaxed)
    }
}
