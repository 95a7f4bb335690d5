import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import wsx_web

/// Presence (online, away, offline) and typing: who hears of them, that they are never stored,
/// the throttle, and the snapshot a page reads.
@Suite("Presence and typing", .timeLimit(.minutes(5)))
struct PresenceTests {
    /// Waits until the hub has `userId`'s stream.
    static func streaming(_ app: TestSession, _ userId: Int64, room: Int64) async throws {
        for _ in 0..<300 where await !app.services.hub.onlineMembers(ofRoom: room).contains(userId) {
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// The next event of `type` (about `userId`, if given), skipping others.
    static func next(_ type: String, about userId: Int64? = nil, _ reader: inout EventStreamClient.Reader) async throws -> ReceivedEvent? {
        while let event = try await reader.next() {
            if event.type == type, userId.map({ event.data.contains(#""userId":\#($0)}"#) }) ?? true { return event }
        }
        return nil
    }

    static func snapshot(_ browser: TestBrowser) async throws -> String {
        try await browser.get("/presence", headers: [.accept: "application/json"]).text
    }

    @Test("teammates hear someone come online, go away and come back, then go offline after the grace; none of it is stored")
    func presenceChanges() async throws {
        // Sequences count up by one on a single node (on PostgreSQL they are microseconds of the
        // clock, so pages on several nodes agree: PostgresNodesTests).
        try await TestApp.sqlite { $0.realtime.offlineGrace = .milliseconds(200) }.run(.live) { app in
            let (a, b, wid, general) = try await MessagingTests.team(app)
            let stranger = try await app.signedInBrowser(email: "s@example.com", nickname: "Stranger")
            let (alice, bob) = (try await app.userId("a@example.com"), try await app.userId("b@example.com"))
            let eventsBefore = try await app.count("SELECT COUNT(*) FROM events")
            try await EventStreamClient.connect(port: app.client.port!, headers: ["Cookie": a.cookieHeader]) { aliceStream in
                _ = try await aliceStream.readHead()
                try await Self.streaming(app, alice, room: general)
                #expect(try await Self.snapshot(b) == #"{"sequence":1,"states":{"\#(alice)":"online"}}"#)
                // Someone who shares no workspace with Alice does not see her.
                #expect(try await Self.snapshot(stranger) == #"{"sequence":1,"states":{}}"#)

                try await EventStreamClient.connect(port: app.client.port!, headers: ["Cookie": b.cookieHeader]) { bobStream in
                    _ = try await bobStream.readHead()
                    let online = try await Self.next("presence.changed", about: bob, &aliceStream)
                    #expect(online?.data == #"{"sequence":2,"state":"online","userId":\#(bob)}"#)
                    #expect(online?.id == nil)

                    // Bob's browser: every tab hidden or idle.
                    try await b.get("/w/\(wid)")
                    #expect(try await b.post("/presence", [("state", "away")]).status == .noContent)
                    #expect(try await Self.next("presence.changed", about: bob, &aliceStream)?.data
                            == #"{"sequence":3,"state":"away","userId":\#(bob)}"#)
                    #expect(try await Self.snapshot(a).contains(#""\#(bob)":"away""#))
                    try await b.post("/presence", [("state", "active")])
                    #expect(try await Self.next("presence.changed", about: bob, &aliceStream)?.data
                            == #"{"sequence":4,"state":"online","userId":\#(bob)}"#)
                    #expect(try await b.post("/presence", [("state", "asleep")]).status == .badRequest)
                }
                // Bob's stream closed: after the grace, offline.
                #expect(try await Self.next("presence.changed", about: bob, &aliceStream)?.data
                        == #"{"sequence":5,"state":"offline","userId":\#(bob)}"#)
            }
            #expect(try await app.count("SELECT COUNT(*) FROM events") == eventsBefore)
            #expect(try await app.count("SELECT COUNT(*) FROM events WHERE type IN ('presence.changed', 'typing')") == 0)
        }
    }

    @Test("a stream's head comes only once the hub delivers to it, so a snapshot read after it misses no change")
    func headMeansSubscribed() async throws {
        try await TestApp { $0.realtime.offlineGrace = .milliseconds(100) }.run(.live) { app in
            let (a, b, _, _) = try await MessagingTests.team(app)
            let (alice, bob) = (try await app.userId("a@example.com"), try await app.userId("b@example.com"))
            for _ in 0..<20 {
                try await EventStreamClient.connect(port: app.client.port!, headers: ["Cookie": a.cookieHeader]) { aliceStream in
                    _ = try await aliceStream.readHead()
                    // No waiting for the hub: the open stream already counts, and hears Bob's change.
                    #expect(await app.services.hub.presence(of: alice) == .online)
                    try await EventStreamClient.connect(port: app.client.port!, headers: ["Cookie": b.cookieHeader]) { bobStream in
                        _ = try await bobStream.readHead()
                        #expect(try await Self.snapshot(a).contains(#""\#(bob)":"online""#))
                    }
                    let change = try await Self.next("presence.changed", about: bob, &aliceStream)
                    #expect(change?.data.contains(#""state":"online""#) == true)
                }
                // Both announced offline before the next round.
                for _ in 0..<100 where await !app.services.hub.presence(ofTeammatesOf: alice).states.isEmpty {
                    try await Task.sleep(for: .milliseconds(10))
                }
            }
        }
    }

    @Test("moving to the next page within the grace is not announced as leaving")
    func reconnectWithinGrace() async throws {
        // Counts changes by their sequence, one apart on a single node.
        try await TestApp.sqlite { $0.realtime.offlineGrace = .seconds(1) }.run(.live) { app in
            let (a, b, _, general) = try await MessagingTests.team(app)
            let (alice, bob) = (try await app.userId("a@example.com"), try await app.userId("b@example.com"))
            try await EventStreamClient.connect(port: app.client.port!, headers: ["Cookie": a.cookieHeader]) { aliceStream in
                _ = try await aliceStream.readHead()
                try await Self.streaming(app, alice, room: general)
                // Bob's first page, then the next one: its stream opens as the first one's closed.
                try await EventStreamClient.connect(port: app.client.port!, headers: ["Cookie": b.cookieHeader]) { stream in
                    _ = try await stream.readHead()
                    try await Self.streaming(app, bob, room: general)
                }
                try await EventStreamClient.connect(port: app.client.port!, headers: ["Cookie": b.cookieHeader]) { stream in
                    _ = try await stream.readHead()
                    try await Task.sleep(for: .milliseconds(1500))
                    // Two changes in all: Alice came online, then Bob; his page change made none.
                    let snapshot = try await Self.snapshot(a)
                    #expect(snapshot.hasPrefix(#"{"sequence":2,"#))
                    #expect(snapshot.contains(#""\#(alice)":"online""#) && snapshot.contains(#""\#(bob)":"online""#))
                }
                // What Alice heard of Bob: online once, and offline only when he left for good.
                let online = try await Self.next("presence.changed", about: bob, &aliceStream)
                #expect(online?.data.contains(#""state":"online""#) == true)
                let offline = try await Self.next("presence.changed", about: bob, &aliceStream)
                #expect(offline?.data.contains(#""state":"offline""#) == true)
            }
        }
    }

    @Test("typing reaches the room's other members, at most once in three seconds, and never outsiders")
    func typing() async throws {
        // The throttle's window is wider than any pause a loaded machine makes between two
        // requests: the second signal is always inside it.
        try await TestApp { $0.typingInterval = .seconds(600) }.run(.live) { app in
            let (a, b, wid, general) = try await MessagingTests.team(app)
            let carol = try await app.signedInBrowser(email: "c@example.com", nickname: "Carol")
            try await app.addMember(email: "c@example.com", to: wid, by: a)
            let cid = try await a.createChannel(in: wid, "작은방")
            let (alice, bobId) = (try await app.userId("a@example.com"), try await app.userId("b@example.com"))
            try await EventStreamClient.connect(port: app.client.port!, headers: ["Cookie": b.cookieHeader]) { bob in
                _ = try await bob.readHead()
                try await Self.streaming(app, bobId, room: general)
                try await a.get("/w/\(wid)/c/\(general)")
                #expect(try await a.post("/w/\(wid)/c/\(general)/typing").status == .noContent)
                #expect(try await a.post("/w/\(wid)/c/\(general)/typing").status == .noContent) // throttled
                // Carol is in the workspace but not in 작은방: refused like any room route.
                try await carol.get("/w/\(wid)")
                #expect(try await carol.post("/w/\(wid)/c/\(cid)/typing").status == .notFound)
                // Alice types in 작은방, where Bob is not: he hears nothing of it.
                try await a.post("/w/\(wid)/c/\(cid)/typing")
                try await MessagingTests.say(a, "/w/\(wid)/c/\(general)", "다 썼어요")
                var typing: [ReceivedEvent] = []
                while let event = try await bob.next(), event.type != "message.created" {
                    if event.type == "typing" { typing.append(event) }
                }
                #expect(typing.count == 1)
                #expect(typing.first?.data == #"{"name":"Alice","roomId":\#(general),"userId":\#(alice),"workspaceId":\#(wid)}"#)
                #expect(typing.first?.id == nil)
            }
            #expect(try await app.count("SELECT COUNT(*) FROM events WHERE type = 'typing'") == 0)
        }
    }

    @Test("the throttle lets one signal per person and room through every interval")
    func throttle() {
        let throttle = TypingThrottle(interval: .seconds(3))
        let start = ContinuousClock.now
        #expect(throttle.allows(userId: 1, roomId: 1, now: start))
        #expect(!throttle.allows(userId: 1, roomId: 1, now: start + .seconds(2)))
        #expect(throttle.allows(userId: 1, roomId: 2, now: start + .seconds(2)))
        #expect(throttle.allows(userId: 2, roomId: 1, now: start + .seconds(2)))
        #expect(throttle.allows(userId: 1, roomId: 1, now: start + .seconds(3)))
        // Sending the message clears it: the next words are news at once.
        throttle.forget(userId: 1, roomId: 1)
        #expect(throttle.allows(userId: 1, roomId: 1, now: start + .seconds(4)))
    }
}
