import GRDB
import Synchronization

/// A number that goes up with every transaction committed on the app's writer: while it stays
/// the same, any read of the database gives the same answer.
///
/// Caches of what was read (`VersionedCache`) note the version read *before* their database
/// read and keep the result only while the version is unchanged, so a commit racing with the
/// read makes the result stale rather than wrong. Commits by other processes on the same file
/// (the `wsx coins` command) are not counted; the caches' lifetime bounds how long they go unseen.
final class DataVersion: TransactionObserver, Sendable {
    private let value = Atomic<UInt64>(0)

    /// The number of commits so far.
    var current: UInt64 { value.load(ordering: .acquiring) }

    // No change events are observed (that would cost every statement an update hook); only the
    // end of each transaction, after SQLite has made its changes visible to readers.
    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseDidRollback(_ db: Database) {}

    func databaseDidCommit(_ db: Database) {
        value.add(1, ordering: .releasing)
    }
}
