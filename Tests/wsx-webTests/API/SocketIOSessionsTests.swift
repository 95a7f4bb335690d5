import Testing
@testable import wsx_web

/// The heartbeat and the upgrade of the apps' Socket.IO sessions, on short clocks.
@Suite("Socket.IO sessions: heartbeat and upgrade", .timeLimit(.minutes(1)))
struct SocketIOSessionsTests {
    /// Short clocks; the timeout shorter than the interval, so a missed pong closes before the
    /// next ping would go.
    let sessions = SocketIOSessions(settings: .init(pingInterval: .milliseconds(300), pingTimeout: .milliseconds(250)))

    @Test("a session busy with events is still pinged every interval (the apps count only pings as signs of life)")
    func busySessionsArePinged() async throws {
        let sessions = SocketIOSessions(settings: .init(pingInterval: .milliseconds(200), pingTimeout: .seconds(10)))
        let sid = sessions.open(token: nil).sid
        let start = ContinuousClock.now
        var pinged = false
        // Events every 20 ms, for at least 4 s (counted in rounds: a busy machine may pause the test).
        for _ in 0..<200 where !pinged {
            sessions.send(["42/ws-channel-x,[\"channel\",{}]"], to: sid)
            let packets = try #require(await sessions.poll(sid))
            #expect(packets.first == "42/ws-channel-x,[\"channel\",{}]")
            pinged = packets.contains("2")
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(pinged)
        #expect(ContinuousClock.now - start >= .milliseconds(200), "not before the interval")
    }

    @Test("a ping left unanswered past the timeout closes the session; an answered one keeps it")
    func unansweredPingsClose() async throws {
        let sid = sessions.open(token: nil).sid
        #expect(await sessions.poll(sid) == ["2"])
        sessions.pong(sid)
        #expect(await sessions.poll(sid) == ["2"], "answered: the next ping comes")
        #expect(await sessions.poll(sid) == ["1"], "unanswered: the waiting poll gets the close")
        #expect(await sessions.poll(sid) == nil)
        #expect(!sessions.exists(sid))
    }

    @Test("a WebSocket's probe answers the waiting poll with a noop; once upgraded the session is the WebSocket's")
    func probeAndUpgrade() async throws {
        let sessions = SocketIOSessions()
        let opened = sessions.open(token: nil)
        #expect(opened.packet.contains(#""upgrades":["websocket"]"#))
        let waiting = Task { await sessions.poll(opened.sid) }
        try await Task.sleep(for: .milliseconds(30))
        sessions.probe(opened.sid)
        #expect(await waiting.value == ["6"])
        #expect(await sessions.poll(opened.sid) == ["6"], "polls meanwhile answer at once")
        sessions.send(["40/ws-dm-y,"], to: opened.sid)
        sessions.endProbe(opened.sid, upgraded: true)
        #expect(sessions.isUpgraded(opened.sid))
        #expect(await sessions.poll(opened.sid) == ["40/ws-dm-y,"], "what was queued meanwhile goes on the WebSocket")
        #expect(!sessions.open(token: nil, onWebSocket: true).packet.contains("websocket"), "nothing to upgrade to")
    }
}
