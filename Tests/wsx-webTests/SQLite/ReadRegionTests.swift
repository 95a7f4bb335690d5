import Foundation
import Synchronization
import GRDB
import HummingbirdTesting
import Testing
import Views
@testable import wsx_web

/// SQLite's own part of keeping reads: the regions a cache learns from the statements it ran
/// (SQLite's statement trace and GRDB's regions), the commits that touch them, and another
/// connection's writes noticed through `PRAGMA data_version`. A second backend brings its own
/// version of these tests.
@Suite("Read regions on SQLite", .timeLimit(.minutes(5)))
struct ReadRegionTests {
    @Test("the commit count counts the writer's commits, not its reads or rolled-back transactions")
    func commitsCounted() async throws {
        let database = try AppDatabase(DatabaseQueue())
        let start = database.regions.commits
        _ = try database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM users") }
        #expect(database.regions.commits == start)
        try? await database.writer.write { db in
            try db.execute(sql: "UPDATE users SET nickname = nickname")
            throw CancellationError()
        }
        #expect(database.regions.commits == start)
        try await database.writer.write { db in
            try db.execute(sql: "UPDATE users SET nickname = nickname")
        }
        #expect(database.regions.commits == start + 1)
    }

    /// A user row, for the caches below to read.
    private static func someone(_ database: AppDatabase) async throws {
        try await database.writer.write { db in
            try db.execute(sql: """
                INSERT INTO users (email, email_key, nickname, password_hash, created_at, updated_at)
                VALUES ('a@example.com', 'a@example.com', 'A', 'x', 0, 0)
                """)
        }
    }

    @Test("a cache learns what it read from its own queries: a column it read goes stale, others do not")
    func regionLearnedFromQueries() async throws {
        let database = try AppDatabase(DatabaseQueue())
        try await Self.someone(database)
        let names = VersionedCache<Int, String>("names", of: database, clock: .system, capacity: 8)
        let read = { try await names.value(for: 1, from: database) { db in
            try String.fetchOne(db, sql: "SELECT nickname FROM users WHERE id = 1") ?? ""
        } }
        // The first read taught the cache its region, so its value was not kept; the second is.
        #expect(try await read() == "A")
        #expect(names.value(for: 1) == nil)
        #expect(try await read() == "A")
        #expect(names.value(for: 1) == "A")
        #expect(names.region.region.description == "users(id,nickname)")
        // The first commit after a region grew counts for it (a transaction under way may have
        // changed what it covers before it was covered); then only changes to what it read do.
        try await database.writer.write { db in try db.execute(sql: "UPDATE users SET coin_balance = 1") }
        #expect(names.value(for: 1) == nil)
        #expect(try await read() == "A")

        // Nobody listed `users.nickname` for it: the query did.
        try await database.writer.write { db in try db.execute(sql: "UPDATE users SET coin_balance = 5") }
        try await database.writer.write { db in
            try db.execute(sql: "INSERT INTO events (type, user_id, payload, created_at) VALUES ('x', 1, '{}', 0)")
        }
        try? await database.writer.write { db in
            try db.execute(sql: "UPDATE users SET nickname = 'B'")
            throw CancellationError()
        }
        #expect(names.value(for: 1) == "A")
        try await database.writer.write { db in try db.execute(sql: "UPDATE users SET nickname = 'B'") }
        #expect(names.value(for: 1) == nil)
        #expect(try await read() == "B")
        try await database.writer.write { db in try db.execute(sql: "DELETE FROM users") }
        #expect(names.value(for: 1) == nil)
    }

    @Test("a read no cache answered runs on the reader threads, not the caller's, and its cache still learns from it",
          .timeLimit(.minutes(1)))
    func readsOffTheLoop() async throws {
        let readers = ReaderThreads(count: 2)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wsx-readers-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let database = try AppDatabase.open(dataDirectory: folder, readers: readers)
        try await Self.someone(database)
        let names = VersionedCache<Int, String>("names", of: database, clock: .system, capacity: 8)
        let caller = pthread_self()
        let threads = Mutex<[pthread_t]>([])
        let read = { try await names.value(for: 1, from: database) { db in
            threads.withLock { $0.append(pthread_self()) }
            return try String.fetchOne(db, sql: "SELECT nickname FROM users WHERE id = 1") ?? ""
        } }
        #expect(try await read() == "A")
        #expect(try await read() == "A")
        #expect(names.value(for: 1) == "A")
        #expect(names.region.region.description == "users(id,nickname)")
        #expect(threads.withLock { $0 }.count == 2)
        #expect(threads.withLock { $0 }.allSatisfy { pthread_equal($0, caller) == 0 })
        // While a slow read holds one reader thread, a read no cache answers runs on the other.
        try await database.writer.write { db in try db.execute(sql: "UPDATE users SET nickname = 'B'") }
        // The slow read waits until the other one is done: were both on one thread, it would
        // wait out its 20 s instead and say so.
        let gate = DispatchSemaphore(value: 0)
        async let slow = database.readOffLoop { _ in gate.wait(timeout: .now() + 20) == .success }
        try await Task.sleep(for: .milliseconds(50))
        #expect(try await read() == "B")
        gate.signal()
        #expect(try await slow)
        try await readers.shutDown()
    }

    @Test("every run of a cached statement counts, in savepoints too, and the changes of triggers")
    func statementRunsAndTriggersCount() async throws {
        let database = try AppDatabase(DatabaseQueue())
        try await database.writer.write { db in
            try db.execute(sql: """
                CREATE TABLE origin (x INTEGER); CREATE TABLE copied (y INTEGER);
                CREATE TRIGGER origin_copied AFTER INSERT ON origin BEGIN INSERT INTO copied VALUES (new.x); END;
                """)
        }
        let copies = VersionedCache<String, Int>("copies", of: database, clock: .system, capacity: 8)
        let count = { try await copies.value(for: "n", from: database) { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM copied") ?? 0
        } }
        _ = try await count()
        for run in 1 ... 3 {
            #expect(try await count() == run - 1)
            #expect(copies.value(for: "n") == run - 1)
            try await database.writer.write { db in
                try db.cachedStatement(sql: "INSERT INTO origin VALUES (?)").execute(arguments: [run])
            }
            #expect(copies.value(for: "n") == nil)
        }
        // As a group commit runs each post.
        #expect(try await count() == 3)
        try await database.writer.write { db in
            try db.inSavepoint {
                try db.cachedStatement(sql: "INSERT INTO origin VALUES (?)").execute(arguments: [4])
                return .commit
            }
        }
        #expect(copies.value(for: "n") == nil)
        #expect(try await count() == 4)
        try await database.writer.write { db in try db.execute(sql: "UPDATE origin SET x = x + 1") }
        #expect(copies.value(for: "n") == 4)
    }

    @Test("a value read through another cache goes stale with it")
    func partsOfAValue() async throws {
        let database = try AppDatabase(DatabaseQueue())
        try await Self.someone(database)
        let names = VersionedCache<Int, String>("names", of: database, clock: .system, capacity: 8)
        let greetings = VersionedCache<Int, String>("greetings", of: database, clock: .system, capacity: 8)
        let greet = {
            try greetings.value(for: 1, in: nil as Database?) { _ in "" }
        }
        let name: @Sendable (Database?) throws -> String = { db in
            try names.value(for: 1, in: db) { db in try String.fetchOne(db, sql: "SELECT nickname FROM users WHERE id = 1") ?? "" }
        }
        let read = {
            try await database.queryKept(sharing: 1) { tx in
                try greetings.value(for: 1, in: (tx as? SQLiteTransaction)?.db) { db in try "hello " + name(db) }
            }
        }
        // The name is kept first, so the greeting's own reads never run a query on `users`:
        // only its part, the name, says what it depends on.
        // The first commit after a region grew counts for it (a transaction under way may have
        // changed what it covers before it was covered).
        let settle = { try await database.writer.write { db in try db.execute(sql: "UPDATE users SET coin_balance = 1") } }
        _ = try database.read { db in try name(db) }
        try await settle()
        _ = try database.read { db in try name(db) }
        _ = try await read()
        try await settle()
        _ = try await read()
        #expect(try greet() == "hello A")
        #expect(greetings.region.region.isEmpty)
        try await database.writer.write { db in try db.execute(sql: "UPDATE users SET coin_balance = 3") }
        #expect(try greet() == "hello A")
        try await database.writer.write { db in try db.execute(sql: "UPDATE users SET nickname = 'B'") }
        #expect(throws: NotKeptInMemory.self) { try greet() }
        #expect(try await read() == "hello B")
    }

    @Test("a cache filled late in a read transaction keeps nothing its older snapshot showed: the sidebar's counts stayed stale",
          .timeLimit(.minutes(1)))
    func lateFillOfAnOlderSnapshot() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wsx-snapshot-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let database = try AppDatabase.open(dataDirectory: folder)
        try await Self.someone(database)
        let people = VersionedCache<Int, Int>("people", of: database, clock: .system, capacity: 8)
        let names = VersionedCache<Int, String>("names", of: database, clock: .system, capacity: 8)
        let name = { (db: Database) in try String.fetchOne(db, sql: "SELECT nickname FROM users WHERE id = 1") ?? "" }
        for _ in 0..<2 { _ = try database.read { db in try names.value(for: 1, in: db, orRead: name) } }
        #expect(names.value(for: 1) == "A", "kept while nothing changes")

        // One read transaction, as a page's: a first cache reads (the snapshot starts), a post
        // commits meanwhile, then a second cache reads what the snapshot still shows.
        let seen = try database.read { db -> String in
            _ = try people.value(for: 1, in: db) { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM users") ?? 0 }
            let written = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                try? database.writer.write { db in try db.execute(sql: "UPDATE users SET nickname = 'B' WHERE id = 1") }
                written.signal()
            }
            written.wait()
            return try names.value(for: 1, in: db, orRead: name)
        }
        #expect(seen == "A", "the transaction answers from its snapshot")
        #expect(names.value(for: 1) == nil, "but that is not kept as the value of now")
        #expect(try database.read { db in try names.value(for: 1, in: db, orRead: name) } == "B")
    }

    @Test("a cached value goes stale with a commit, with its lifetime, or before it is stored")
    func cacheValidity() async throws {
        let database = try AppDatabase(DatabaseQueue())
        let clock = ManualClock()
        let region = database.cacheRegion("test")
        _ = region.learn(try database.read { db in try db.makeStatement(sql: "SELECT nickname FROM users").databaseRegion })
        let cache = VersionedCache<String, Int>(region: region, clock: clock.wallClock, capacity: 2, lifetime: 10)
        let commit = { try await database.writer.write { db in
            try db.execute(sql: "UPDATE users SET nickname = nickname")
        } }
        try await commit()

        cache.store(1, for: "a", readAt: region.version)
        #expect(cache.value(for: "a") == 1)
        try await commit()
        #expect(cache.value(for: "a") == nil)

        // Read before a commit, stored after it: never kept.
        let readAt = region.version
        try await commit()
        cache.store(2, for: "b", readAt: readAt)
        #expect(cache.value(for: "b") == nil)

        cache.store(3, for: "c", readAt: region.version)
        clock.advance(by: 9)
        #expect(cache.value(for: "c") == 3)
        clock.advance(by: 1)
        #expect(cache.value(for: "c") == nil)

        // Full: expired values go first, else all of them; the count never passes the capacity.
        for (index, key) in ["d", "e", "f"].enumerated() {
            cache.store(index, for: key, readAt: region.version)
        }
        #expect(cache.count <= 2)
        #expect(cache.value(for: "f") == 2)
    }

    @Test("a change made by another connection to the file (the sqlite3 shell, wsx coins) shows on the very next request")
    func otherConnectionsOnTheNextRequest() async throws {
        try await TestApp.sqlite().run { app in
            let (a, b, wid, general) = try await MessagingTests.team(app)
            let home = "/w/\(wid)", path = "/w/\(wid)/c/\(general)"
            _ = try await MessagingTests.say(a, path, "said before the rename")
            let before = try await a.get(home)
            #expect(before.text.contains("data-coin-balance>"))
            // Kept: the same page twice, and every cache it read warm.
            try await b.read(path)
            #expect(try await b.get(path).text == (try await b.get(path).text))

            let other = try DatabaseQueue(path: AppDatabase.path(inDataDirectory: app.services.config.dataDirectory))
            try await other.write { db in
                try db.execute(sql: "UPDATE users SET coin_balance = 7777")
                try db.execute(sql: "UPDATE users SET nickname = 'Renamed Outside' WHERE email = 'a@example.com'")
            }
            #expect(try await a.get(home).text.contains("data-coin-balance>7777<"))
            let page = try await b.get(path).text
            #expect(page.contains("Renamed Outside"))

            // An edit as wsx makes one: the text, and when it was edited.
            try await other.write { db in
                try db.execute(sql: """
                    UPDATE messages SET body = 'edited outside', body_html = '<p>edited outside</p>',
                        edited_at = '2026-01-02 03:04:05.000' WHERE body = 'said before the rename'
                    """)
            }
            #expect(try await b.get(path).text.contains("edited outside"))
            try other.close()
        }
    }
}
