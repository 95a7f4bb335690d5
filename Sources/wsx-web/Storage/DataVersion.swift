import GRDB
import Synchronization

/// A number that goes up with every transaction committed on the app's writer (or, when made
/// for some tables, with every commit that changed one of them): while it stays the same, any
/// read of the database (of those tables) gives the same answer.
///
/// Caches of what was read (`VersionedCache`) note the version read *before* their database
/// read and keep the result only while the version is unchanged, so a commit racing with the
/// read makes the result stale rather than wrong. Commits by other processes on the same file
/// (the `wsx coins` command) are not counted; the caches' lifetime bounds how long they go unseen.
final class DataVersion: TransactionObserver, Sendable {
    /// The tables whose changes count; nil for every commit.
    let tables: Set<String>?
    private let value = Atomic<UInt64>(0)
    /// Whether the transaction in progress changed a watched table; touched on the writer's queue.
    private let changed = Atomic<Bool>(false)

    init(watching tables: Set<String>? = nil) {
        self.tables = tables
    }

    /// The number of counted commits so far.
    var current: UInt64 { value.load(ordering: .acquiring) }

    // With no tables, no change events are observed (that would cost every statement an update
    // hook); only the end of each transaction, after SQLite has made its changes visible to
    // readers. With tables, GRDB reports the statements that change them, including deletions
    // SQLite would otherwise do without reporting rows.
    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        tables?.contains(eventKind.tableName) ?? false
    }

    func databaseDidChange() {
        changed.store(true, ordering: .relaxed)
        // The rest of the transaction need not be reported: one change is enough.
        stopObservingDatabaseChangesUntilNextTransaction()
    }

    func databaseDidChange(with event: DatabaseEvent) {
        databaseDidChange()
    }

    func databaseDidCommit(_ db: Database) {
        if tables == nil || changed.exchange(false, ordering: .relaxed) {
            value.add(1, ordering: .releasing)
        }
    }

    func databaseDidRollback(_ db: Database) {
        changed.store(false, ordering: .relaxed)
    }
}
