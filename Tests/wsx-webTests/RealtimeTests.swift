import Foundation
import HummingbirdTesting
import Testing
@testable import wsx_web

/// The real-time backbone over real sockets: outbox, hub, `/events`, replay.
@Suite("Real-time backbone", .timeLimit(.minutes(5)))
struct RealtimeTests {
    /// Publishes `events` in one transaction, as a feature's change would.
    static func publish(_ app: TestSession, _ events: OutgoingEvent...) async throws {
        try await app.database.write { tx in
            for event in events { try tx.publish(event) }
        }
    }

    static func note(_ text: String, to audience: Audience, type: EventType = .roomUpdated) -> OutgoingEvent {
        OutgoingEvent(type, to: audience, payload: ["note": text])
    }

    static func userId(_ app: TestSession, _ email: String) async throws -> Int64 {
        Int64(try await app.count("SELECT id FROM users WHERE email = ?", [email]))
    }

    static func headers(_ browser: TestBrowser, lastEventId: String? = nil) -> [String: String] {
        var headers = ["Cookie": browser.cookieHeader]
        if let lastEventId { headers["Last-Event-ID"] = lastEventId }
        return headers
    }

    @Test("without a session /events is a 401, not a stream")
    func refusesAnonymous() async throws {
        try await TestApp().run(.live) { app in
            try await EventStreamClient.connect(port: app.client.port!, headers: [:]) { reader in
                let head = try await reader.readHead()
                #expect(head.status == 401)
                #expect(head.headers["content-type"]?.hasPrefix("text/event-stream") == false)
            }
        }
    }

    @Test("each event reaches exactly its audience: the room's members, or the one user")
    func deliversToAudienceOnly() async throws {
        try await TestApp().run(.live) { app in
            let alice = try await app.signedInBrowser(email: "alice@example.com")
            let bob = try await app.signedInBrowser(email: "bob@example.com")
            let carol = try await app.signedInBrowser(email: "carol@example.com")
            let (a, b, c) = (try await Self.userId(app, "alice@example.com"), try await Self.userId(app, "bob@example.com"),
                             try await Self.userId(app, "carol@example.com"))
            let port = app.client.port!
            let latest = try await app.settledEventId()

            try await Self.publish(app, OutgoingEvent(.roomMemberAdded, to: .room(7), payload: ["room": 7],
                                                      membership: .added(room: 7, users: [a, b])))
            try await Self.publish(app, Self.note("for room 7", to: .room(7)))
            try await Self.publish(app, Self.note("for carol", to: .user(c), type: .userUpdated))
            try await Self.publish(app, OutgoingEvent(.roomMemberRemoved, to: .room(7), payload: ["room": 7],
                                                      membership: .removed(room: 7, users: [b])))
            try await Self.publish(app, Self.note("after bob left", to: .room(7)))
            try await Self.publish(app, Self.note("end", to: .user(a), type: .userUpdated),
                                   Self.note("end", to: .user(b), type: .userUpdated),
                                   Self.note("end", to: .user(c), type: .userUpdated))

            func received(_ browser: TestBrowser) async throws -> [String] {
                try await EventStreamClient.connect(port: port, headers: Self.headers(browser, lastEventId: "\(latest)")) { reader in
                    var seen: [String] = []
                    while let event = try await reader.next() {
                        seen.append("\(event.type) \(event.data)")
                        if event.data.contains("\"end\"") { break }
                    }
                    return seen
                }
            }
            #expect(try await received(alice) == [
                #"room.member_added {"room":7}"#, #"room.updated {"note":"for room 7"}"#,
                #"room.member_removed {"room":7}"#, #"room.updated {"note":"after bob left"}"#, #"user.updated {"note":"end"}"#,
            ])
            // Replay uses membership as it is now: Bob is no longer in room 7, so its events are
            // not replayed to him; live, he got them while he was a member (next test).
            #expect(try await received(bob) == [#"user.updated {"note":"end"}"#])
            #expect(try await received(carol) == [#"user.updated {"note":"for carol"}"#, #"user.updated {"note":"end"}"#])
        }
    }

    @Test("live: a member gets room events while in the room, including their own removal, and nothing after")
    func liveMembershipChanges() async throws {
        try await TestApp().run(.live) { app in
            let bob = try await app.signedInBrowser(email: "bob@example.com")
            let b = try await Self.userId(app, "bob@example.com")
            try await EventStreamClient.connect(port: app.client.port!, headers: Self.headers(bob)) { reader in
                _ = try await reader.readHead()
                #expect(await eventually { await app.services.hub.subscriberCount == 1 })
                try await Self.publish(app, Self.note("before joining", to: .room(9)))
                try await Self.publish(app, OutgoingEvent(.roomMemberAdded, to: .room(9), payload: ["room": 9],
                                                          membership: .added(room: 9, users: [b])))
                try await Self.publish(app, Self.note("while in", to: .room(9)))
                try await Self.publish(app, OutgoingEvent(.roomMemberRemoved, to: .room(9), payload: ["room": 9],
                                                          membership: .removed(room: 9, users: [b])))
                try await Self.publish(app, Self.note("after leaving", to: .room(9)))
                try await Self.publish(app, Self.note("done", to: .user(b), type: .userUpdated))
                let events = try await reader.next(4)
                #expect(events.map(\.type) == ["room.member_added", "room.updated", "room.member_removed", "user.updated"])
                #expect(events[1].data == #"{"note":"while in"}"#)
                let ids = events.compactMap { $0.id.flatMap(Int64.init) }
                #expect(ids == ids.sorted() && ids.count == 4)
            }
        }
    }

    @Test("a stream starts with retry:, sends heartbeats, and carries id, event and data")
    func streamFormat() async throws {
        let test = TestApp { $0.realtime.heartbeat = .milliseconds(100) }
        try await test.run(.live) { app in
            let browser = try await app.signedInBrowser(nickname: "Before")
            try await EventStreamClient.connect(port: app.client.port!, headers: Self.headers(browser)) { reader in
                let head = try await reader.readHead()
                #expect(head.status == 200)
                #expect(head.headers["content-type"] == "text/event-stream; charset=utf-8")
                #expect(head.headers["cache-control"] == "no-store")
                #expect(head.headers["x-content-type-options"] == "nosniff")
                let first = try #require(try await reader.next(includingComments: true))
                #expect(first.isComment)   // the heartbeat comes within 100 ms, before any event
                // The profile change of another tab arrives as user.updated.
                try await browser.get("/profile")
                try await browser.post("/profile", [("nickname", "After"), ("phone", "")])
                let event = try #require(try await reader.next())
                #expect(event.type == "user.updated")
                #expect(event.data.contains(#""nickname":"After""#))
                #expect(Int64(event.id ?? "") != nil)
            }
        }
    }

    @Test("a stream opens on a kept-alive connection, and after a pipelined request's response, never inside it")
    func streamsShareConnectionsInOrder() async throws {
        try await TestApp().run(.live) { app in
            let browser = try await app.signedInBrowser(email: "k@example.com")
            let me = try await Self.userId(app, "k@example.com")
            let port = app.client.port!
            // A page first, then the stream on the same connection, as a browser reuses one.
            try await EventStreamClient.connect(port: port, path: "/healthz", headers: Self.headers(browser)) { reader in
                let page = try await reader.readWholeResponse()
                #expect(page.status == 200)
                try await reader.send("/events", headers: Self.headers(browser))
                let head = try await reader.readHead()
                #expect(head.status == 200)
                #expect(head.headers["content-type"] == "text/event-stream; charset=utf-8")
                #expect(await eventually { await app.services.hub.subscriberCount == 1 })
                try await Self.publish(app, Self.note("kept alive", to: .user(me), type: .userUpdated))
                #expect(try await reader.next()?.data == #"{"note":"kept alive"}"#)
            }
            // Pipelined: the page's whole response comes first, then the stream's.
            try await EventStreamClient.connect(port: port, headers: Self.headers(browser), precededBy: ["/healthz", "/login"]) { reader in
                #expect(try await reader.readWholeResponse().status == 200)
                let login = try await reader.readWholeResponse()
                #expect(login.status == 303)   // signed in: the login page sends the browser on
                #expect(try await reader.readHead().headers["content-type"] == "text/event-stream; charset=utf-8")
                #expect(await eventually { await app.services.hub.subscriberCount == 1 })
                try await Self.publish(app, Self.note("pipelined", to: .user(me), type: .userUpdated))
                #expect(try await reader.next()?.data == #"{"note":"pipelined"}"#)
            }
        }
    }

    @Test("after a disconnect, Last-Event-ID replays every missed event in order, then continues live")
    func replaysAfterDisconnect() async throws {
        try await TestApp().run(.live) { app in
            let browser = try await app.signedInBrowser(email: "r@example.com")
            let me = try await Self.userId(app, "r@example.com")
            let port = app.client.port!
            let lastSeen = try await EventStreamClient.connect(port: port, headers: Self.headers(browser)) { reader in
                _ = try await reader.readHead()
                #expect(await eventually { await app.services.hub.subscriberCount == 1 })
                for index in 1...3 { try await Self.publish(app, Self.note("live \(index)", to: .user(me), type: .userUpdated)) }
                return try await reader.next(3).last!.id!
            }
            for index in 4...8 { try await Self.publish(app, Self.note("missed \(index)", to: .user(me), type: .userUpdated)) }
            try await EventStreamClient.connect(port: port, headers: Self.headers(browser, lastEventId: lastSeen)) { reader in
                let replayed = try await reader.next(5)
                #expect(replayed.map(\.data) == (4...8).map { #"{"note":"missed \#($0)"}"# })
                try await Self.publish(app, Self.note("live 9", to: .user(me), type: .userUpdated))
                #expect(try await reader.next()?.data == #"{"note":"live 9"}"#)
            }
            // The query parameter does the same for a first connect.
            try await EventStreamClient.connect(port: port, path: "/events?lastEventId=\(lastSeen)",
                                                headers: Self.headers(browser)) { reader in
                let events = try await reader.next(6)
                #expect(events.last?.data == #"{"note":"live 9"}"#)
            }
        }
    }

    @Test("a reconnecting stream gets what it missed while every shared worker thread is busy (hashing passwords, looking up hosts)")
    func replayDoesNotWaitForSharedThreads() async throws {
        // On SQLite whatever the suites run on: a PostgreSQL connection being opened resolves its
        // host on that same pool (NIO's getaddrinfo), so holding it would stall the database too.
        try await TestApp.sqlite().run(.live) { app in
            let browser = try await app.signedInBrowser(email: "busy@example.com")
            let me = try await Self.userId(app, "busy@example.com")
            let start = try await app.settledEventId()
            for index in 1...3 { try await Self.publish(app, Self.note("missed \(index)", to: .user(me), type: .userUpdated)) }
            let port = app.client.port!, headers = Self.headers(browser, lastEventId: "\(start)")
            let replayed = try await SharedThreads.held {
                try await EventStreamClient.connect(port: port, headers: headers) { try await $0.next(3) }
            }
            #expect(replayed?.map(\.data) == (1...3).map { #"{"note":"missed \#($0)"}"# }, "the replay waited for the shared threads")
        }
    }

    @Test("replay of large events comes in pages of about 256 KB, read off the event loop, every event once and in order")
    func replaysLargeEventsInPages() async throws {
        try await TestApp().run(.live) { app in
            let browser = try await app.signedInBrowser(email: "big@example.com")
            let me = try await Self.userId(app, "big@example.com")
            let start = try await app.settledEventId()
            let filler = String(repeating: "가", count: 30_000)   // 90 KB each
            for index in 1...12 { try await Self.publish(app, Self.note("\(index) \(filler)", to: .user(me), type: .userUpdated)) }
            let log = app.services.events
            let through = try log.latestId()
            let first = try log.replay(after: start, through: through, userId: me, rooms: [])
            #expect(first.count == 3, "90 KB rows: the third passes 256 KB and closes the page")
            let tiny = try log.replay(after: start, through: through, userId: me, rooms: [], maxBytes: 1)
            #expect(tiny.count == 1, "a page always holds one row, however large")
            try await EventStreamClient.connect(port: app.client.port!, headers: Self.headers(browser, lastEventId: "\(start)")) { reader in
                let replayed = try await reader.next(12)
                #expect(replayed.map { $0.data.split(separator: " ").first.map(String.init) } == (1...12).map { #"{"note":"\#($0)"# })
                #expect(Set(replayed.compactMap(\.id)).count == 12)
            }
        }
    }

    @Test("a subscriber that stops reading is disconnected, and resumes without losing anything")
    func slowReaderIsDisconnected() async throws {
        let test = TestApp { $0.realtime.bufferBytes = 256 * 1024 }
        try await test.run(.live) { app in
            let browser = try await app.signedInBrowser(email: "slow@example.com")
            let me = try await Self.userId(app, "slow@example.com")
            let port = app.client.port!
            let big = String(repeating: "가", count: 20_000)   // 60 KB per event
            let count = 400                                   // 24 MB: far more than socket buffers hold
            let firstPart = try await EventStreamClient.connect(port: port, headers: Self.headers(browser)) { reader in
                _ = try await reader.readHead()
                #expect(await eventually { await app.services.hub.subscriberCount == 1 })
                for index in 0..<count {
                    try await Self.publish(app, OutgoingEvent(.userUpdated, to: .user(me), payload: ["n": "\(index)", "pad": big]))
                }
                // The hub let go of the stream instead of buffering without end.
                #expect(await eventually(timeout: .seconds(10)) { await app.services.hub.subscriberCount == 0 })
                var received: [ReceivedEvent] = []
                while let event = try await reader.next() { received.append(event) }
                return received
            }
            #expect(!firstPart.isEmpty && firstPart.count < count)   // it got a prefix, then the stream ended
            // Like a browser, reconnect from the last id until everything arrived (a slow
            // reader may be cut off again while catching up).
            var numbers = try firstPart.map { try Self.number(in: $0) }
            var lastSeen = firstPart.last!.id!
            var reconnects = 0
            while numbers.last != count - 1, reconnects < 20 {
                reconnects += 1
                let more = try await EventStreamClient.connect(port: port, headers: Self.headers(browser, lastEventId: lastSeen)) { reader in
                    var batch: [ReceivedEvent] = []
                    while let event = try await reader.next() {
                        batch.append(event)
                        if try Self.number(in: event) == count - 1 { break }
                    }
                    return batch
                }
                numbers += try more.map { try Self.number(in: $0) }
                lastSeen = more.last?.id ?? lastSeen
            }
            #expect(numbers == Array(0..<count))
        }
    }

    static func number(in event: ReceivedEvent) throws -> Int {
        Int(try JSONDecoder().decode([String: String].self, from: Data(event.data.utf8))["n"]!)!
    }

    @Test("a closed connection frees its subscriber at once")
    func closedConnectionIsFreed() async throws {
        try await TestApp().run(.live) { app in
            let browser = try await app.signedInBrowser()
            try await EventStreamClient.connect(port: app.client.port!, headers: Self.headers(browser)) { reader in
                _ = try await reader.readHead()
                #expect(await eventually { await app.services.hub.subscriberCount == 1 })
            }
            #expect(await eventually(timeout: .seconds(2)) { await app.services.hub.subscriberCount == 0 })
        }
    }

    @Test("a resume point older than the retention window, or nonsense, gets a reset event")
    func resetForPrunedHistory() async throws {
        try await TestApp().run(.live) { app in
            let browser = try await app.signedInBrowser(email: "old@example.com")
            let me = try await Self.userId(app, "old@example.com")
            try await Self.publish(app, Self.note("ancient", to: .user(me), type: .userUpdated))
            let ancient = try await app.settledEventId()
            app.clock.advance(by: 8 * 24 * 60 * 60)
            try await Self.publish(app, Self.note("recent", to: .user(me), type: .userUpdated))
            #expect(try await app.services.events.prune(olderThan: app.services.config.eventRetention) > 0)

            for resume in ["\(ancient - 1)", "banana", "99999999"] {
                try await EventStreamClient.connect(port: app.client.port!, headers: Self.headers(browser, lastEventId: resume)) { reader in
                    let first = try #require(try await reader.next())
                    #expect(first.type == "reset", "for \(resume)")
                }
            }
            // Resuming right at the pruned point still works.
            try await EventStreamClient.connect(port: app.client.port!, headers: Self.headers(browser, lastEventId: "\(ancient)")) { reader in
                let event = try await reader.next()
                #expect(event?.data == #"{"note":"recent"}"#)
            }
        }
    }

    @Test("changing the password ends every session's stream; this browser resumes on its new session, missing nothing")
    func revokedSessionsCloseTheirStreams() async throws {
        try await TestApp().run(.live) { app in
            let here = try await app.signedInBrowser(email: "p@example.com", password: "first password")
            let there = app.browser()
            try await there.logIn(email: "p@example.com", password: "first password")
            let port = app.client.port!
            try await EventStreamClient.connect(port: port, headers: Self.headers(there)) { thereReader in
                try await EventStreamClient.connect(port: port, headers: Self.headers(here)) { hereReader in
                    _ = try await thereReader.readHead()
                    _ = try await hereReader.readHead()
                    #expect(await eventually { await app.services.hub.subscriberCount == 2 })
                    try await here.get("/profile")
                    try await here.post("/profile/password", [("current_password", "first password"),
                                                              ("password", "second password"), ("password_confirm", "second password")])
                    let notice = try #require(try await thereReader.next())
                    #expect(notice.type == "session.revoked")
                    #expect(notice.data.contains("password_changed"))
                    #expect(try await thereReader.next() == nil)   // then its stream ends
                    // This browser's session was replaced too (a new token): its stream ends the same way.
                    let revoked = try #require(try await hereReader.next())
                    #expect(revoked.type == "session.revoked")
                    #expect(try await hereReader.next() == nil)
                    try await here.get("/profile")
                    try await here.post("/profile", [("nickname", "Still here"), ("phone", "")])
                    // Reconnecting with the new cookie and the last id seen resumes without a gap.
                    let (status, next) = try await EventStreamClient.connect(
                        port: port, headers: Self.headers(here, lastEventId: revoked.id)) { again -> (Int, String?) in
                        (try await again.readHead().status, try await again.next()?.type)
                    }
                    #expect(status == 200)
                    #expect(next == "user.updated")
                }
            }
        }
    }

    @Test("an event exists if and only if its change committed")
    func rolledBackChangesPublishNothing() async throws {
        try await TestApp().run { app in
            struct Refused: Error {}
            let before = try await app.count("SELECT COUNT(*) FROM events")
            await #expect(throws: Refused.self) {
                try await app.database.write { tx in
                    try tx.publish(Self.note("never", to: .user(1), type: .userUpdated))
                    throw Refused()
                }
            }
            try await Self.publish(app, Self.note("kept", to: .user(1), type: .userUpdated))
            let rows = try app.database.query { tx in try tx.inspection.rows("SELECT payload FROM events", []).map { $0[0] } }
            #expect(rows.count == before + 1)
            #expect(rows.last == #"{"note":"kept"}"#)
            #expect(await eventually { app.services.hub.latestEventId == Int64(before + 1) })
        }
    }
}

/// The backbone's longest test, with a time limit of its own: alone it takes about 30 s of two
/// cores, but `make test` runs it beside hundreds of others, where it took 357 s in a CI run
/// (over the backbone's 5 minutes) without anything being wrong.
@Suite("Real-time backbone: reconnect storm", .timeLimit(.minutes(12)))
struct ReconnectStormTests {
    @Test("a reconnect storm: 10,000 events from 4 writers, the client dropping every few events, sees each once, in order")
    func reconnectStorm() async throws {
        // The stream's buffer is kept small (64 KB, not 1 MB): each of the 500 connections leaves
        // after a few events, and the server frames what it can hold for it before it notices.
        try await TestApp { $0.realtime.bufferBytes = 64 * 1024 }.run(.live) { app in
            let browser = try await app.signedInBrowser(email: "storm@example.com")
            _ = try await app.signedInBrowser(email: "other@example.com")
            let me = try await RealtimeTests.userId(app, "storm@example.com")
            let other = try await RealtimeTests.userId(app, "other@example.com")
            let port = app.client.port!
            let start = try await app.settledEventId()
            let writers = 4, perWriter = 2_500

            let writing = Task {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for writer in 0..<writers {
                        group.addTask {
                            var sequence = 0
                            while sequence < perWriter {
                                let batch = min(1 + sequence % 5, perWriter - sequence)
                                let events = (0..<batch).map { offset in
                                    OutgoingEvent(.userUpdated, to: .user(me), payload: ["w": writer, "n": sequence + offset])
                                }
                                try await app.database.write { tx in
                                    for event in events { try tx.publish(event) }
                                    // Noise for someone else, in the same transactions.
                                    try tx.publish(OutgoingEvent(.userUpdated, to: .user(other), payload: ["x": 1]))
                                }
                                sequence += batch
                            }
                        }
                    }
                    try await group.waitForAll()
                }
            }

            var lastId = "\(start)"
            var seen: [[String: Int]] = []
            var ids: [Int64] = []
            var connections = 0
            while seen.count < writers * perWriter {
                connections += 1
                let dropAfter = min(1 + (connections * 7) % 40, writers * perWriter - seen.count)
                let batch = try await EventStreamClient.connect(port: port, headers: RealtimeTests.headers(browser, lastEventId: lastId)) { reader in
                    var batch: [ReceivedEvent] = []
                    while batch.count < dropAfter, let event = try await reader.next() { batch.append(event) }
                    return batch
                }
                for event in batch {
                    ids.append(Int64(event.id!)!)
                    seen.append(try JSONDecoder().decode([String: Int].self, from: Data(event.data.utf8)))
                }
                if let last = batch.last?.id { lastId = last }
            }
            try await writing.value
            #expect(connections > 100)
            #expect(ids == ids.sorted() && Set(ids).count == ids.count)
            #expect(seen.count == writers * perWriter)
            for writer in 0..<writers {
                // Each writer's events arrive complete and in its own order.
                #expect(seen.filter { $0["w"] == writer }.map { $0["n"]! } == Array(0..<perWriter))
            }
            #expect(!seen.contains { $0["x"] != nil })
        }
    }
}
