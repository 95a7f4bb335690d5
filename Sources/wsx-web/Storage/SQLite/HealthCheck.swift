import Foundation
import GRDB
import Synchronization

/// What `/healthz` answers: nothing wrong, or the reason the server cannot do its work. It used
/// to say `ok` whenever a read worked, on a full disk too, while every post got a 503.
///
/// Three things are checked, at most once a second whatever the probes' rate: the data folder's
/// free space against `--min-free-space`; the writer (a write transaction begun and rolled back,
/// so it takes the write lock without writing or waking any cache); and real writes that failed
/// for want of storage (`noteStorageFailure`): after one, the probe writes for real (a row
/// rewritten as it was), and the server is healthy again once a commit reaches the disk.
final class HealthCheck: Sendable {
    let database: AppDatabase
    let disk: DiskSpace
    /// How long an answer is reused.
    static let interval: Duration = .seconds(1)

    private let answer = Mutex<(at: ContinuousClock.Instant, problem: String?)?>(nil)
    private let failure = Mutex<(at: ContinuousClock.Instant, version: UInt64, reason: String)?>(nil)

    init(database: AppDatabase, disk: DiskSpace) {
        self.database = database
        self.disk = disk
    }

    /// A write failed because the data folder could not take it.
    func noteStorageFailure(_ error: any Error) {
        let reason = (error as? DatabaseError).map { "the database refused a write (\($0.resultCode))" }
            ?? "a file could not be written"
        failure.withLock { $0 = (.now, database.regions.commits, reason) }
        answer.withLock { $0 = nil }
    }

    /// Nil when the server is healthy, else why not (one line, for operators).
    func problem() async -> String? {
        let now = ContinuousClock.now
        if let last = answer.withLock({ $0 }), now - last.at < Self.interval { return last.problem }
        let problem = await check()
        answer.withLock { $0 = (now, problem) }
        return problem
    }

    private func check() async -> String? {
        if let free = disk.freeBytes(), free < disk.minimumFreeBytes {
            return "the data folder's disk has \(DiskSpace.describe(free)) free, less than --min-free-space "
                + "(\(DiskSpace.describe(disk.minimumFreeBytes)))"
        }
        if database.postgres != nil { return await postgresProblem() }
        if let failed = failure.withLock({ $0 }), database.regions.commits == failed.version {
            do {
                try await database.writer.write { db in
                    try db.execute(sql: "UPDATE grdb_migrations SET identifier = identifier WHERE rowid = (SELECT MIN(rowid) FROM grdb_migrations)")
                }
            } catch {
                return "writes are failing: \(failed.reason)"
            }
        }
        failure.withLock { $0 = nil }
        do {
            try await database.writer.writeWithoutTransaction { db in
                try db.inTransaction(.immediate) { .rollback }
            }
        } catch {
            return "the database cannot be written: \((error as? DatabaseError)?.resultCode.description ?? "\(type(of: error))")"
        }
        return nil
    }

    /// On PostgreSQL: whether a read comes back within `postgresTimeout`. A read still waiting
    /// then (a connection being made to an unreachable host) is left to end on its own.
    private func postgresProblem() async -> String? {
        let database = self.database
        let answered = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let once = Mutex<CheckedContinuation<Bool, Never>?>(continuation)
            let answer: @Sendable (Bool) -> Void = { value in once.withLock { $0.take() }?.resume(returning: value) }
            Task { answer((try? await database.queryOffLoop { tx in try tx.inspection.integer("SELECT 1", []) }) == 1) }
            Task {
                try? await Task.sleep(for: Self.postgresTimeout)
                answer(false)
            }
        }
        return answered ? nil : "the database does not answer (PostgreSQL)"
    }

    /// How long `/healthz` waits for PostgreSQL.
    static let postgresTimeout: Duration = .seconds(2)
}
