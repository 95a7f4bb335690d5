import GRDB
import Synchronization

/// The writer's one transaction observer for caches: it counts every commit, and tells every
/// `ReadRegion` about each kind of change a statement may make, so each counts exactly the
/// commits that touched what it read.
///
/// Changes are seen per statement, from the kinds of change SQLite's authorizer says the
/// statement may make (those of its triggers and foreign-key actions included), as GRDB asks
/// before running each one, and never per row: a post's trigger updates every member's unread
/// count, and GRDB copies each row event made inside a savepoint (every post runs in one) for
/// whoever observes it. A statement that turns out to change nothing still counts; that only
/// makes caches read again. Commits by other connections are not seen here: `OtherConnections`
/// notices them and calls `countOutsideChanges`.
final class RegionVersions: TransactionObserver, Sendable {
    private let regions = Mutex<[ReadRegion]>([])
    /// The regions of the statements caches ran, shared by all of them.
    let statementRegions = StatementRegions()
    private let commitCount = Atomic<UInt64>(0)
    /// Told before and after each commit, to tell this process's commits from others'.
    let outside: OtherConnections?

    init(outside: OtherConnections?) {
        self.outside = outside
    }

    /// A new region, empty until its cache's first read, counted from now on.
    func makeRegion(name: String) -> ReadRegion {
        let region = ReadRegion(name: name, statementRegions: statementRegions)
        regions.withLock { $0.append(region) }
        return region
    }

    /// The region of the cache named `name` (for tests and diagnostics).
    func region(named name: String) -> ReadRegion? {
        regions.withLock { $0.first { $0.name == name } }
    }

    /// The number of commits so far, whatever they changed (with those of other processes
    /// noticed): while it stays the same, nothing in the database changed.
    var commits: UInt64 { commitCount.load(ordering: .acquiring) }

    /// Another process committed to the file: every region may have changed.
    func countOutsideChanges() {
        let commit = commitCount.add(1, ordering: .releasing).newValue
        for region in regions.withLock({ $0 }) { region.countOutsideChange(commit: commit) }
    }

    /// A commit on PostgreSQL (this node's or another's) changed `tables`: the regions that read
    /// one of them count it.
    func countChanges(touching tables: Set<String>) {
        let commit = commitCount.add(1, ordering: .releasing).newValue
        for region in regions.withLock({ $0 }) { region.countChange(touching: tables, commit: commit) }
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        let change = ChangeKind(eventKind)
        for region in regions.withLock({ $0 }) { region.note(change) }
        return false
    }

    func databaseDidChange(with event: DatabaseEvent) {}

    func databaseWillCommit() throws {
        outside?.localCommitBegins()
    }

    func databaseDidCommit(_ db: Database) {
        let commit = commitCount.add(1, ordering: .releasing).newValue
        for region in regions.withLock({ $0 }) { region.didCommit(commit) }
        if outside?.localCommitEnded(db) == true { countOutsideChanges() }
    }

    func databaseDidRollback(_ db: Database) {
        for region in regions.withLock({ $0 }) { region.didRollback() }
        outside?.localCommitFailed()
    }
}
