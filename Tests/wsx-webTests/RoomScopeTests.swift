import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import wsx_web

/// Channels, DMs and group conversations share one handler per route, through a room resolved
/// from the address and the viewer's membership (`RoomScope`): every kind answers every route
/// the same way, at the addresses it always had.
@Suite("One room scope", .timeLimit(.minutes(5)))
struct RoomScopeTests {
    @Test("a channel, a DM and a group answer page, pins, post, read, notify and typing alike, posts in place")
    func everyKindEveryRoute() async throws {
        try await TestApp().run { app in
            let (a, b, _, _, wid, rid) = try await GroupConversationTests.setUp(app)
            let general = Int64(try await app.count("SELECT id FROM rooms WHERE workspace_id = ? AND is_default = TRUE", [wid]))
            let alice = try await app.userId("a@example.com")
            let rooms = ["/w/\(wid)/c/\(general)", "/w/\(wid)/dm/\(alice)", "/w/\(wid)/g/\(rid)"]
            for path in rooms {
                #expect(try await b.get(path).status == .ok, "\(path)")
                #expect(try await b.get(path + "/pins").status == .ok, "\(path)/pins")
                let posted = try await b.post(path + "/messages", [("content", "hello from \(path)")])
                #expect(posted.status == .seeOther && posted.location?.hasPrefix(path) == true, "\(path)/messages")
                #expect(try await b.get(path).text.contains("hello from \(path)"))
                let read = try await b.post(path + "/read")
                #expect(read.status == .seeOther && read.location == path, "\(path)/read")
                let notify = try await b.post(path + "/notify", [("level", "mute")])
                #expect(notify.status == .seeOther && notify.location == path, "\(path)/notify")
                #expect(try await b.post(path + "/typing").status == .noContent, "\(path)/typing")
                // Scripts get answers, not redirects.
                let json = try await b.post(path + "/read", headers: [.accept: "application/json"])
                #expect(json.status == .noContent, "\(path)/read as JSON")
            }
            // A DM before its first message: a page to start it, nothing to read or tell.
            let carol = try await app.userId("c@example.com")
            let unstarted = "/w/\(wid)/dm/\(carol)"
            #expect(try await a.get(unstarted).status == .ok)
            #expect(try await a.post(unstarted + "/read").status == .noContent)
            #expect(try await a.post(unstarted + "/typing").status == .noContent)
            #expect(try await a.post(unstarted + "/notify", [("level", "mute")]).status == .notFound)
            #expect(try await a.post(unstarted + "/messages", [("content", "first words")]).status == .seeOther)
            #expect(try await a.get(unstarted).text.contains("first words"))
        }
    }

    @Test("every route of every kind is a 404 for a room the viewer is not in, or an address that is not one")
    func notFoundAlike() async throws {
        try await TestApp().run { app in
            let (a, _, _, d, wid, rid) = try await GroupConversationTests.setUp(app)
            let outsider = try await app.signedInBrowser(email: "e@example.com", nickname: "Eve")
            let general = Int64(try await app.count("SELECT id FROM rooms WHERE workspace_id = ? AND is_default = TRUE", [wid]))
            let bob = try await app.userId("b@example.com")
            let routes = ["", "/pins", "/messages", "/read", "/notify", "/typing"]
            func status(_ browser: TestBrowser, _ path: String) async throws -> HTTPResponse.Status {
                let isPage = path.hasSuffix("/pins") || !["/messages", "/read", "/notify", "/typing"].contains { path.hasSuffix($0) }
                if isPage { return try await browser.get(path).status }
                try await browser.get("/workspaces")
                return try await browser.post(path, [("content", "x"), ("level", "mute")]).status
            }
            // Dave is in the workspace, not in the group; Eve is in neither.
            for route in routes {
                #expect(try await status(d, "/w/\(wid)/g/\(rid)" + route) == .notFound, "group\(route) for Dave")
                #expect(try await status(outsider, "/w/\(wid)/g/\(rid)" + route) == .notFound, "group\(route) for Eve")
                #expect(try await status(outsider, "/w/\(wid)/c/\(general)" + route) == .notFound, "channel\(route) for Eve")
                #expect(try await status(outsider, "/w/\(wid)/dm/\(bob)" + route) == .notFound, "dm\(route) for Eve")
                for bad in ["/w/x/c/\(general)", "/w/\(wid)/c/x", "/w/\(wid)/dm/x", "/w/\(wid)/g/x", "/w/\(wid)/g/99999"] {
                    #expect(try await status(a, bad + route) == .notFound, "\(bad)\(route)")
                }
            }
        }
    }
}
