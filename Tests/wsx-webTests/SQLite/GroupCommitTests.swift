import Foundation
import GRDB
import Synchronization
import Testing
@testable import wsx_web

/// SQLite's own: one writer, savepoints in a shared transaction.
/// Writes that arrive together share a transaction, yet each caller sees what a transaction of
/// its own would give: its result after the commit, its changes and events kept only if it
/// succeeded and the commit did.
@Suite("Group commit", .timeLimit(.minutes(5)))
struct GroupCommitTests {
    /// A migrated in-memory database with a table to write to, and a count of its commits.
    struct Fixture {
        let database: AppDatabase
        let commits: CommitCounter

        init() throws {
            let queue = try DatabaseQueue()
            database = try AppDatabase(queue)
            commits = CommitCounter()
            try queue.write { db in
                try db.execute(sql: """
                    CREATE TABLE probe (id INTEGER PRIMARY KEY, label TEXT NOT NULL);
                    CREATE TABLE parent (id INTEGER PRIMARY KEY);
                    CREATE TABLE child (id INTEGER PRIMARY KEY,
                                        parent_id INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED);
                    """)
            }
            queue.add(transactionObserver: commits)
        }

        /// Inserts a row labelled `label` and publishes an event naming it; returns the row id.
        func insert(_ label: String, db: Database) throws -> Int64 {
            try db.execute(sql: "INSERT INTO probe (label) VALUES (?)", arguments: [label])
            try database.outbox.publish(OutgoingEvent(.roomUpdated, to: .room(1), payload: ["note": label]), in: db)
            return db.lastInsertedRowID
        }

        func labels() throws -> [String] {
            try database.read { db in try String.fetchAll(db, sql: "SELECT label FROM probe ORDER BY id") }
        }

        /// Holds the writer in a first write until `waiting` more writes queue behind it, then
        /// lets it go, so those writes form one batch.
        func batch<T: Sendable>(_ writes: [@Sendable () async throws -> T]) async throws -> [Result<T, any Error>] {
            let gate = DispatchSemaphore(value: 0)
            let entered = Mutex(false)
            let first = Task {
                try await database.groupCommit.write { db in
                    entered.withLock { $0 = true }
                    gate.wait()
                    return try insert("gate", db: db)
                }
            }
            let deadline = ContinuousClock.now + .seconds(10)
            while !entered.withLock({ $0 }), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
            // One at a time, so they queue in the order given (tasks may start in any order).
            var tasks: [Task<Result<T, any Error>, Never>] = []
            for write in writes {
                tasks.append(Task { () -> Result<T, any Error> in
                    do { return .success(try await write()) } catch { return .failure(error) }
                })
                // Each write gets its own wait: a deadline shared by all twenty could run out on a
                // loaded machine and let the rest queue in any order.
                let queued = ContinuousClock.now + .seconds(10)
                while database.groupCommit.waitingCount < tasks.count, ContinuousClock.now < queued {
                    try await Task.sleep(for: .milliseconds(1))
                }
            }
            gate.signal()
            _ = try await first.value
            var results: [Result<T, any Error>] = []
            for task in tasks { results.append(await task.value) }
            return results
        }

        /// The labels of the next `count` committed events.
        func nextEvents(_ count: Int) async -> [String] {
            var labels: [String] = []
            for await events in database.outbox.committed {
                labels += events.map(\.event.payload)
                if labels.count >= count { break }
            }
            return labels
        }
    }

    /// Counts commits of transactions that changed the probe tables.
    final class CommitCounter: TransactionObserver, Sendable {
        private let commits = Mutex(0)
        var count: Int { commits.withLock { $0 } }
        func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }
        func databaseDidChange(with event: DatabaseEvent) {}
        func databaseDidCommit(_ db: Database) { commits.withLock { $0 += 1 } }
        func databaseDidRollback(_ db: Database) {}
    }

    struct Refused: Error, Equatable {}

    @Test("writes that wait together commit once, and each caller gets its own result after the commit")
    func waitingWritesShareOneCommit() async throws {
        let fixture = try Fixture()
        let writes: [@Sendable () async throws -> Int64] = (0..<20).map { index in
            { try await fixture.database.groupCommit.write { db in try fixture.insert("w\(index)", db: db) } }
        }
        let commitsBefore = fixture.commits.count
        let results = try await fixture.batch(writes)
        let ids = try results.map { try $0.get() }
        #expect(Set(ids).count == 20)
        #expect(try fixture.labels() == ["gate"] + (0..<20).map { "w\($0)" })
        // The gate's transaction, then one for all twenty.
        #expect(fixture.commits.count - commitsBefore == 2)
        let events = await fixture.nextEvents(21)
        #expect(events == (["gate"] + (0..<20).map { "w\($0)" }).map { #"{"note":"\#($0)"}"# })
    }

    @Test("a write that throws is undone alone: its row and its event are dropped, the others commit")
    func failingWriteIsUndoneAlone() async throws {
        let fixture = try Fixture()
        let writes: [@Sendable () async throws -> Int64] = (0..<5).map { index in
            { try await fixture.database.groupCommit.write { db in
                let id = try fixture.insert("w\(index)", db: db)
                if index == 2 { throw Refused() }
                return id
            } }
        }
        let results = try await fixture.batch(writes)
        #expect(results.map { (try? $0.get()) != nil } == [true, true, false, true, true])
        if case .failure(let error) = results[2] { #expect(error is Refused) }
        #expect(try fixture.labels() == ["gate", "w0", "w1", "w3", "w4"])
        _ = try await fixture.database.groupCommit.write { db in try fixture.insert("after", db: db) }
        let events = await fixture.nextEvents(6)
        #expect(events == ["gate", "w0", "w1", "w3", "w4", "after"].map { #"{"note":"\#($0)"}"# })
        let stored = try fixture.database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM events") }
        #expect(stored == 6)
    }

    @Test("a commit that fails fails every write of its transaction, and none of their events go out")
    func failedCommitFailsEveryone() async throws {
        let fixture = try Fixture()
        let writes: [@Sendable () async throws -> Int64] = (0..<3).map { index in
            { try await fixture.database.groupCommit.write { db in
                if index == 1 {
                    // Checked only at commit: a child whose parent does not exist.
                    try db.execute(sql: "INSERT INTO child (parent_id) VALUES (999)")
                }
                return try fixture.insert("w\(index)", db: db)
            } }
        }
        let results = try await fixture.batch(writes)
        for result in results {
            #expect(throws: DatabaseError.self) { try result.get() }
        }
        #expect(try fixture.labels() == ["gate"])
        _ = try await fixture.database.groupCommit.write { db in try fixture.insert("after", db: db) }
        #expect(await fixture.nextEvents(2) == ["gate", "after"].map { #"{"note":"\#($0)"}"# })
    }
}
