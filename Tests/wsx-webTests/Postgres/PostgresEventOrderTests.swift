import Foundation
import Logging
import PostgresNIO
import Synchronization
import Testing
@testable import wsx_web

/// Event ids on PostgreSQL must be gap-free in commit order across nodes, or a node that
/// delivered a later id would never send an earlier one committed after it (`PostgresEventIds`).
@Suite("PostgreSQL event ids follow commit order", .timeLimit(.minutes(5)))
struct PostgresEventOrderTests {
    let logger = Logger(label: "test.postgres")

    private func migratedDatabase() async throws -> PostgresAddress {
        let address = try await PostgresTestCluster.shared().database()
        try await PostgresConnector(address: address, logger: logger).withConnection { connection in
            _ = try await PostgresSchema.migrate(connection, logger: logger)
        }
        return address
    }

    /// `count` sessions of their own (each a node's connection), closed afterwards whatever happens.
    private func withSessions<T>(_ count: Int, on address: PostgresAddress,
                                 _ body: ([PostgresSession]) async throws -> T) async throws -> T {
        var sessions: [PostgresSession] = []
        do {
            // Inside the `do`: a connection that cannot be made closes those already made.
            for _ in 0..<count {
                sessions.append(PostgresSession(try await PostgresConnector(address: address, logger: logger).connect(), logger: logger))
            }
            let result = try await body(sessions)
            for session in sessions { try? await session.connection.close() }
            return result
        } catch {
            for session in sessions { try? await session.connection.close() }
            throw error
        }
    }

    private static func publish(in session: PostgresSession) throws -> Int64 {
        let id = try PostgresEventIds.next(in: session)
        try session.run("INSERT INTO events (id, type, room_id, payload, created_at) VALUES (\(id), 'test', 1, '{}', now())")
        return id
    }

    private static func ids(_ session: PostgresSession, after last: Int64 = 0) throws -> [Int64] {
        try session.run("SELECT id FROM events WHERE id > \(last) ORDER BY id").map { try $0.decode(Int64.self) }
    }

    @Test("a writer holding an id makes the next one wait, so ids become visible in the order they were handed out")
    func nextWriterWaits() async throws {
        let address = try await migratedDatabase()
        try await withSessions(3, on: address) { sessions in
            let (a, b, reader) = (sessions[0], sessions[1], sessions[2])
            let first = try await onOwnThread {
                try a.run("BEGIN")
                return try Self.publish(in: a)
            }
            let bTookItsId = Flag()
            let second = Task {
                try await onOwnThread {
                    try b.transaction {
                        let id = try Self.publish(in: b)
                        bTookItsId.set()
                        return id
                    }
                }
            }
            try await Task.sleep(for: .milliseconds(300))
            #expect(!bTookItsId.isSet, "the second writer got an id while the first one's was uncommitted")
            #expect(try await onOwnThread { try Self.ids(reader) }.isEmpty)
            try await onOwnThread { try a.run("COMMIT") }
            #expect(try await second.value == first + 1)
            #expect(try await onOwnThread { try Self.ids(reader) } == [first, first + 1])
        }
    }

    @Test("the gap this prevents: ids from a sequence commit out of order, and a reader past the later one skips the earlier")
    func sequenceWouldSkip() async throws {
        let address = try await migratedDatabase()
        try await withSessions(3, on: address) { sessions in
            let (a, b, reader) = (sessions[0], sessions[1], sessions[2])
            let skipped = try await onOwnThread { () throws -> (delivered: [Int64], afterwards: [Int64]) in
                try reader.run("CREATE SEQUENCE demo_event_ids")
                let insert: (PostgresSession) throws -> Void = { session in
                    try session.run("INSERT INTO events (id, type, room_id, payload, created_at) VALUES (nextval('demo_event_ids'), 'test', 1, '{}', now())")
                }
                try a.run("BEGIN")
                try insert(a)  // takes 1
                try b.transaction { try insert(b) }  // takes 2, commits first
                let delivered = try Self.ids(reader)
                try a.run("COMMIT")
                return (delivered, try Self.ids(reader, after: delivered.last ?? 0))
            }
            #expect(skipped.delivered == [2])
            #expect(skipped.afterwards.isEmpty, "event 1 committed, but a node that delivered 2 never sends it")
        }
    }

    @Test("two nodes publish 300 events at once; a node delivering what follows its last id gets each once, in order")
    func concurrentWriters() async throws {
        let address = try await migratedDatabase()
        try await withSessions(3, on: address) { sessions in
            let (writers, reader) = (Array(sessions[0..<2]), sessions[2])
            let perWriter = 150
            let finished = Flag()
            async let delivered: (ids: [Int64], gaps: [String]) = onOwnThread {
                var last: Int64 = 0, seen: [Int64] = [], gaps: [String] = []
                while true {
                    // Read after the writers are done once more, so the last pass sees everything.
                    let done = finished.isSet
                    for id in try Self.ids(reader, after: last) {
                        if id != last + 1 { gaps.append("\(last) → \(id)") }
                        (last, seen) = (id, seen + [id])
                    }
                    if done { return (seen, gaps) }
                }
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in writers {
                    group.addTask {
                        try await onOwnThread {
                            for _ in 0..<perWriter {
                                // Holding the id a moment before committing gives the other node every
                                // chance to commit a later one first.
                                _ = try writer.transaction {
                                    let id = try Self.publish(in: writer)
                                    usleep(UInt32.random(in: 0...1500))
                                    return id
                                }
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            finished.set()
            let result = try await delivered
            #expect(result.gaps.isEmpty)
            #expect(result.ids == Array(1...Int64(2 * perWriter)))
        }
    }
}

/// A flag one thread sets and another reads.
private final class Flag: Sendable {
    private let value = Mutex(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}
