import Foundation
import GRDB
import Synchronization

/// Notices commits made to the database file by any connection but the server's writer (the
/// `sqlite3` shell, an operator command, a second `DatabaseQueue`), so the caches of reads can
/// drop what they kept before it is served again.
///
/// SQLite's `PRAGMA data_version` answers, on one connection, a number that changes when
/// another connection committed. Two connections ask it:
/// - a read-only connection of its own (`sentinel`), asked before each signed-in request
///   (`changedOutside`): every commit changes its number, the writer's too, so after each of
///   the writer's commits its number is taken again as the new baseline
///   (`localCommitEnded`), and while one is under way its change is not taken for another's;
/// - the writer, after each of its commits: its number changes only for others' commits, and
///   catches one that landed just before a commit of ours and was then taken for ours.
///
/// A commit by another connection in the microseconds between one of ours and the new baseline
/// is taken for ours there, and caught by the writer's number at its next commit.
final class OtherConnections: Sendable {
    private let sentinel: DatabaseQueue
    private let baseline = Mutex<Int?>(nil)
    private let writerVersion = Mutex<Int?>(nil)
    private let localCommits = Atomic<Int>(0)

    /// Watches the database file at `path`, which the server's writer has open.
    init(path: String) throws {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.label = "wsx.outside-writes"
        sentinel = try DatabaseQueue(path: path, configuration: configuration)
    }

    /// Whether another connection committed since the last time anyone asked; true when the
    /// sentinel cannot tell (so caches read again rather than serve something old).
    func changedOutside() -> Bool {
        if localCommits.load(ordering: .acquiring) > 0 { return false }
        return baseline.withLock { baseline in
            guard let now = try? sentinelVersion() else { return true }
            defer { baseline = now }
            return baseline.map { $0 != now } ?? false
        }
    }

    private func sentinelVersion() throws -> Int {
        try sentinel.inDatabase { db in try Self.dataVersion(db) }
    }

    private static func dataVersion(_ db: Database) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: "PRAGMA data_version")) ?? 0
    }

    /// The writer is about to commit.
    func localCommitBegins() {
        localCommits.add(1, ordering: .acquiringAndReleasing)
    }

    /// The writer's commit did not happen.
    func localCommitFailed() {
        if localCommits.load(ordering: .acquiring) > 0 { localCommits.subtract(1, ordering: .acquiringAndReleasing) }
    }

    /// The writer committed, on `db`: answers whether another connection had committed before.
    func localCommitEnded(_ db: Database) -> Bool {
        let writer = try? Self.dataVersion(db)
        let before = writerVersion.withLock { last in
            defer { last = writer }
            return last
        }
        baseline.withLock { baseline in baseline = try? sentinelVersion() }
        localCommits.subtract(1, ordering: .acquiringAndReleasing)
        guard let writer, let before else { return writer == nil }
        return writer != before
    }
}
