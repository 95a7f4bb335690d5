import Foundation
import GRDB
import HummingbirdTesting
import Testing
import Views
@testable import wsx_web

/// Pages and sessions answered from memory while the database is unchanged: they must never show
/// anything a fresh render would not.
@Suite("Rendered pages kept between commits")
struct RenderedPageTests {
    @Test("the version counts the writer's commits, not its reads or rolled-back transactions")
    func versionCountsCommits() async throws {
        let database = try AppDatabase(DatabaseQueue())
        let start = database.version.current
        _ = try database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM users") }
        #expect(database.version.current == start)
        try? await database.writer.write { db in
            try db.execute(sql: "UPDATE users SET nickname = nickname")
            throw CancellationError()
        }
        #expect(database.version.current == start)
        try await database.writer.write { db in
            try db.execute(sql: "UPDATE users SET nickname = nickname")
        }
        #expect(database.version.current == start + 1)
    }

    @Test("a version of some tables counts only the commits that changed them, deletions of every row included")
    func versionOfTables() async throws {
        let database = try AppDatabase(DatabaseQueue())
        let accounts = database.accountsVersion
        let start = accounts.current
        try await database.writer.write { db in
            try db.execute(sql: """
                INSERT INTO users (email, email_key, nickname, password_hash, created_at, updated_at)
                VALUES ('a@example.com', 'a@example.com', 'A', 'x', 0, 0)
                """)
        }
        #expect(accounts.current == start + 1)
        let everything = database.version.current
        try await database.writer.write { db in
            try db.execute(sql: "INSERT INTO events (type, user_id, payload, created_at) VALUES ('x', 1, '{}', 0)")
        }
        #expect(accounts.current == start + 1)
        #expect(database.version.current == everything + 1)
        try? await database.writer.write { db in
            try db.execute(sql: "UPDATE users SET nickname = 'B'")
            throw CancellationError()
        }
        #expect(accounts.current == start + 1)
        try await database.writer.write { db in try db.execute(sql: "DELETE FROM users") }
        #expect(accounts.current == start + 2)
    }

    @Test("a version counts every run of a cached statement, in savepoints too, and the changes of triggers")
    func versionCountsStatementRuns() async throws {
        let database = try AppDatabase(DatabaseQueue())
        try await database.writer.write { db in
            try db.execute(sql: """
                CREATE TABLE origin (x INTEGER); CREATE TABLE copied (y INTEGER);
                CREATE TRIGGER origin_copied AFTER INSERT ON origin BEGIN INSERT INTO copied VALUES (new.x); END;
                """)
        }
        let copied = DataVersion(watching: ["copied"])
        database.writer.add(transactionObserver: copied, extent: .databaseLifetime)
        let start = copied.current
        for run in 1 ... 3 {
            try await database.writer.write { db in
                try db.cachedStatement(sql: "INSERT INTO origin VALUES (?)").execute(arguments: [run])
            }
            #expect(copied.current == start + UInt64(run))
        }
        // As a group commit runs each post.
        try await database.writer.write { db in
            try db.inSavepoint {
                try db.cachedStatement(sql: "INSERT INTO origin VALUES (?)").execute(arguments: [4])
                return .commit
            }
        }
        #expect(copied.current == start + 4)
        try await database.writer.write { db in try db.execute(sql: "UPDATE origin SET x = x + 1") }
        #expect(copied.current == start + 4)
    }

    @Test("posts move no membership version; renaming, creating, joining and leaving channels do")
    func membershipVersion() async throws {
        try await TestApp().run { app in
            let (a, b, wid, general) = try await MessagingTests.team(app)
            let path = "/w/\(wid)/c/\(general)"
            let version = app.database.membershipVersion
            let start = version.current
            _ = try await MessagingTests.say(a, path, "unread counts and read markers move")
            _ = try await MessagingTests.say(b, path, "and again")
            #expect(version.current == start)

            try await a.get("/w/\(wid)/c/\(general)/settings")
            #expect(try await a.post("/w/\(wid)/c/\(general)/settings", [("name", "lobby"), ("description", "")]).status == .seeOther)
            #expect(version.current > start)
            let renamed = version.current
            #expect(try await b.get(path).text.contains("lobby"))

            let side = try await a.createChannel(in: wid, "side")
            let sidePath = "/w/\(wid)/c/\(side)"
            let created = version.current
            #expect(created > renamed)
            try await b.get(sidePath)
            #expect(try await b.post(sidePath + "/join").status == .seeOther)
            #expect(version.current > created)
            #expect(try await MessagingTests.say(b, sidePath, "joined").status == .seeOther)
            let joined = version.current
            #expect(try await b.confirm(sidePath + "/leave").status == .seeOther)
            #expect(version.current > joined)
            #expect(try await b.post(sidePath + "/messages", [("content", "after leaving")]).status == .notFound)
        }
    }

    @Test("someone removed from a workspace cannot post in it on their very next request")
    func removalIsImmediate() async throws {
        try await TestApp().run { app in
            let (a, b, wid, general) = try await MessagingTests.team(app)
            let path = "/w/\(wid)/c/\(general)"
            #expect(try await MessagingTests.say(b, path, "still here").status == .seeOther)
            #expect(try await b.get("/w/\(wid)").status == .ok)
            #expect(try await b.get("/w/\(wid)/unread").status == .ok)
            let bob = try await app.userId("b@example.com")
            #expect(try await a.confirm("/w/\(wid)/members/\(bob)/remove").status == .seeOther)
            #expect(try await b.post(path + "/messages", [("content", "gone")]).status == .notFound)
            #expect(try await b.get(path).status == .notFound)
            #expect(try await b.get("/w/\(wid)/unread").status == .notFound)
            #expect(try await b.get("/w/\(wid)").status == .notFound)
        }
    }

    @Test("a cached value goes stale with a commit, with its lifetime, or before it is stored")
    func cacheValidity() async throws {
        let database = try AppDatabase(DatabaseQueue())
        let clock = ManualClock()
        let cache = VersionedCache<String, Int>(version: database.version, clock: clock.wallClock, capacity: 2, lifetime: 10)
        let commit = { try await database.writer.write { db in
            try db.execute(sql: "UPDATE users SET nickname = nickname")
        } }

        cache.store(1, for: "a", readAt: database.version.current)
        #expect(cache.value(for: "a") == 1)
        try await commit()
        #expect(cache.value(for: "a") == nil)

        // Read before a commit, stored after it: never kept.
        let readAt = database.version.current
        try await commit()
        cache.store(2, for: "b", readAt: readAt)
        #expect(cache.value(for: "b") == nil)

        cache.store(3, for: "c", readAt: database.version.current)
        clock.advance(by: 9)
        #expect(cache.value(for: "c") == 3)
        clock.advance(by: 1)
        #expect(cache.value(for: "c") == nil)

        // Full: expired values go first, else all of them; the count never passes the capacity.
        for (index, key) in ["d", "e", "f"].enumerated() {
            cache.store(index, for: key, readAt: database.version.current)
        }
        #expect(cache.count <= 2)
        #expect(cache.value(for: "f") == 2)
    }

    @Test("a reload is served from memory; a teammate's post shows on the next load")
    func servedUntilACommit() async throws {
        try await TestApp().run { app in
            let (a, b, wid, general) = try await MessagingTests.team(app)
            let path = "/w/\(wid)/c/\(general)"
            _ = try await MessagingTests.say(a, path, "first")
            // The first load marks the message read (a commit); the page after it can be kept.
            try await b.get(path)
            let first = try await b.get(path)
            let again = try await b.get(path)
            #expect(again.status == .ok)
            #expect(again.text == first.text)
            #expect(again.headers[RenderedPage.reusableMarker] == nil)
            #expect(app.services.renderedPages.count == 1)

            _ = try await MessagingTests.say(a, path, "second, after the page was kept")
            let after = try await b.get(path)
            #expect(after.text.contains("second, after the page was kept"))
            #expect(after.text != first.text)
        }
    }

    @Test("a kept page is not served to a session that logged out, nor with a one-time notice")
    func sessionsAndNotices() async throws {
        try await TestApp().run { app in
            let (a, _, wid, general) = try await MessagingTests.team(app)
            let path = "/w/\(wid)/c/\(general)"
            let cookie = try #require(a.cookies[CookiePolicy.session])
            #expect(try await a.get(path).status == .ok)
            #expect(try await a.get(path).status == .ok)
            #expect(app.services.renderedPages.count == 1)

            // A notice left by the previous response belongs to the page that shows it.
            let notice = try #require(Lang.en.strings.table["channel_saved"])
            a.setCookie(CookiePolicy.flash, "channel_saved")
            #expect(try await a.get(path).text.contains(notice))
            #expect(try await a.get(path).text.contains(notice) == false)

            // A script's read in the background between a redirect and its page leaves the
            // notice for the page (it once took it, and "You left the workspace." never showed).
            a.setCookie(CookiePolicy.flash, "channel_saved")
            let background = try await a.get(path, headers: [.init("Sec-Fetch-Dest")!: "empty"])
            #expect(background.text.contains(notice) == false)
            #expect(a.cookies[CookiePolicy.flash] == "channel_saved")
            #expect(try await a.get(path, headers: [.init("Sec-Fetch-Dest")!: "document"]).text.contains(notice))
            #expect(a.cookies[CookiePolicy.flash] == nil)

            #expect(try await a.post("/logout").status == .seeOther)
            a.setCookie(CookiePolicy.session, cookie)
            let ended = try await a.get(path)
            #expect(ended.status == .seeOther)
            #expect(ended.location?.hasPrefix("/login") == true)
        }
    }

    @Test("a change made by another process on the same database (wsx coins) shows within 10 seconds")
    func otherProcessesWithinTheLifetime() async throws {
        try await TestApp().run { app in
            let (a, _, wid, _) = try await MessagingTests.team(app)
            let home = "/w/\(wid)"
            let before = try await a.get(home)
            #expect(before.text.contains("data-coin-balance>"))

            let other = try DatabaseQueue(path: AppDatabase.path(inDataDirectory: app.services.config.dataDirectory))
            try await other.write { db in try db.execute(sql: "UPDATE users SET coin_balance = 7777") }
            try other.close()

            #expect(try await a.get(home).text == before.text)
            app.clock.advance(by: 10)
            #expect(try await a.get(home).text.contains("data-coin-balance>7777<"))
        }
    }
}
