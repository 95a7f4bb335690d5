import Foundation
import GRDB
import Testing
@testable import wsx_web

/// Per-room notification levels and the person's default: what the sidebar, the tab title and
/// the room's menu show, what the forms accept, and who may set them.
@Suite("Notification levels")
struct NotifyLevelTests {
    /// An owner and a member in a workspace, with a second channel both are in.
    static func team(_ app: TestSession) async throws -> (owner: TestBrowser, mate: TestBrowser, wid: Int64, cid: Int64) {
        let owner = try await app.signedInBrowser(email: "o@example.com", nickname: "Owner")
        let wid = try await owner.createWorkspace("Team")
        let cid = try await owner.createChannel(in: wid, "random")
        let mate = try await app.signedInBrowser(email: "m@example.com", nickname: "Mate")
        try await app.addMember(email: "m@example.com", to: wid, by: owner)
        try await mate.get("/w/\(wid)/c/\(cid)")
        try await mate.post("/w/\(wid)/c/\(cid)/join", [])
        return (owner, mate, wid, cid)
    }

    @Test("a muted room is dimmed with a dot, and its unread messages leave the tab title's count")
    func mutedRoomLeavesTheTotal() async throws {
        try await TestApp().run { app in
            let (owner, mate, wid, cid) = try await Self.team(app)
            try await mate.get("/w/\(wid)/c/\(cid)")
            let saved = try await mate.post("/w/\(wid)/c/\(cid)/notify", [("level", "mute")])
            #expect(saved.status == .seeOther)
            #expect(saved.location == "/w/\(wid)/c/\(cid)")
            #expect(try await mate.get("/w/\(wid)/c/\(cid)").text.contains("Notification setting saved."))

            try await owner.get("/w/\(wid)/c/\(cid)")
            for text in ["one", "two", "three"] { try await owner.post("/w/\(wid)/c/\(cid)/messages", [("content", text)]) }
            let home = try await mate.get("/w/\(wid)")
            #expect(!home.text.contains("<title>(3)"))
            #expect(home.text.contains("<title>Team · wsx</title>"))
            #expect(home.text.contains(#"<li class="muted"><a href="/w/\#(wid)/c/\#(cid)" data-room-link="\#(cid)" data-notify="mute" data-notify-own="yes">"#))
            #expect(home.text.contains(#"<span class="badge" data-unread="\#(cid)">3</span>"#))

            // Back to the default: counted again, not dimmed.
            try await mate.get("/w/\(wid)/c/\(cid)")
            try await mate.post("/w/\(wid)/c/\(cid)/notify", [("level", "default")])
            try await owner.post("/w/\(wid)/c/\(cid)/messages", [("content", "four")])
            let after = try await mate.get("/w/\(wid)")
            #expect(after.text.contains("<title>(1) Team · wsx</title>"))
            #expect(after.text.contains(#"<li><a href="/w/\#(wid)/c/\#(cid)" data-room-link="\#(cid)" data-notify="mentions">"#))
        }
    }

    @Test("the room's menu shows the level in effect; the default names the person's own default")
    func roomMenu() async throws {
        try await TestApp().run { app in
            let (_, mate, wid, cid) = try await Self.team(app)
            let page = try await mate.get("/w/\(wid)/c/\(cid)")
            #expect(page.text.contains(#"<option value="default" selected>Default (Mentions and DMs)</option>"#))
            try await mate.post("/w/\(wid)/c/\(cid)/notify", [("level", "all")])
            let set = try await mate.get("/w/\(wid)/c/\(cid)")
            #expect(set.text.contains(#"<option value="all" selected>All messages</option>"#))
            #expect(!set.text.contains(#"<option value="default" selected>"#))
        }
    }

    @Test("the profile's default applies to every room without a level of its own, and is told to the person's tabs")
    func personalDefault() async throws {
        try await TestApp().run { app in
            let (_, mate, wid, cid) = try await Self.team(app)
            try await mate.get("/w/\(wid)/c/\(cid)")
            try await mate.post("/w/\(wid)/c/\(cid)/notify", [("level", "mute")])
            let profile = try await mate.get("/profile")
            #expect(profile.text.contains(#"<option value="mentions" selected>Mentions and DMs</option>"#))
            let saved = try await mate.post("/profile/notify", [("level", "all")])
            #expect(saved.location == "/profile")
            #expect(try await mate.get("/profile").text.contains(#"<option value="all" selected>All messages</option>"#))

            let home = try await mate.get("/w/\(wid)")
            #expect(home.text.contains(#"<meta name="notify-default" content="all">"#))
            #expect(home.text.contains(#"data-room-link="\#(cid)" data-notify="mute" data-notify-own="yes""#))
            let general = try #require(home.text.firstMatch(of: /data-room-link="(\d+)" data-notify="all">/))
            #expect(Int64(general.1) != cid)

            let m = try await app.userId("m@example.com")
            let payloads = try await app.database.writer.read { db in
                try String.fetchAll(db, sql: "SELECT payload FROM events WHERE type = 'notify.changed' AND user_id = ? ORDER BY id",
                                    arguments: [m])
            }
            #expect(payloads.count == 2)
            #expect(payloads.first?.contains(#""level":"mute""#) == true)
            #expect(payloads.last?.contains(#""level":"all""#) == true)
        }
    }

    @Test("levels are refused for rooms one is not in, DMs not started, unknown values; scripts get 204")
    func refusals() async throws {
        try await TestApp().run { app in
            let (owner, mate, wid, cid) = try await Self.team(app)
            let other = try await owner.createChannel(in: wid, "owners-only")
            try await mate.get("/w/\(wid)")
            #expect(try await mate.post("/w/\(wid)/c/\(other)/notify", [("level", "mute")]).status == .notFound)
            let o = try await app.userId("o@example.com")
            #expect(try await mate.post("/w/\(wid)/dm/\(o)/notify", [("level", "mute")]).status == .notFound)
            #expect(try await mate.post("/w/\(wid)/c/\(cid)/notify", [("level", "loud")]).status == .unprocessableContent)
            #expect(try await mate.post("/profile/notify", [("level", "default")]).status == .unprocessableContent)

            let outsider = try await app.signedInBrowser(email: "x@example.com")
            try await outsider.get("/workspaces")
            #expect(try await outsider.post("/w/\(wid)/c/\(cid)/notify", [("level", "mute")]).status == .notFound)

            try await mate.post("/w/\(wid)/dm/\(o)/messages", [("content", "hi")])
            let json = try await mate.post("/w/\(wid)/dm/\(o)/notify", [("level", "mute")], headers: [.accept: "application/json"])
            #expect(json.status == .noContent)
            #expect(try await app.count("SELECT COUNT(*) FROM room_members WHERE notify_level = 'mute'") == 1)
        }
    }
}
