import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import wsx_web

/// Per-room notification levels and the person's default: what the sidebar, the tab title and
/// the room's menu show, what the forms accept, and who may set them.
@Suite("Notification levels", .timeLimit(.minutes(5)))
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

    /// The sidebar row of room `id` on a page: its `<li>` up to its badge.
    static func row(_ html: String, _ id: Int64) -> Substring? {
        guard let link = html.range(of: #"data-room-link="\#(id)""#),
              let start = html[..<link.lowerBound].range(of: "<li ", options: .backwards),
              let end = html[link.upperBound...].range(of: "</li>") else { return nil }
        return html[start.lowerBound..<end.upperBound]
    }

    @Test("badges follow the level: all counts every message; mentions bolds the room and counts mentions; mute counts mentions only")
    func badgesFollowTheLevel() async throws {
        try await TestApp().run { app in
            let (owner, mate, wid, cid) = try await Self.team(app)
            try await owner.get("/w/\(wid)/c/\(cid)")
            // The default (mentions and DMs): plain messages make the name bold, with no number.
            for text in ["one", "two"] { try await owner.post("/w/\(wid)/c/\(cid)/messages", [("content", text)]) }
            var home = try await mate.get("/w/\(wid)").text
            var row = try #require(Self.row(home, cid))
            #expect(row.hasPrefix(#"<li class="room-item unread"><a href="/w/\#(wid)/c/\#(cid)" data-unread-count="2" data-mention-count="0""#))
            #expect(row.contains(#"<span class="badge" data-unread="\#(cid)" hidden>0</span>"#))
            #expect(home.contains(#"<span class="badge" id="mentions-unread" hidden>0</span>"#))
            // A mention: a number, on the room and on the Mentions item, and in the title.
            try await owner.post("/w/\(wid)/c/\(cid)/messages", [("content", "@Mate 봐 주세요")])
            home = try await mate.get("/w/\(wid)").text
            row = try #require(Self.row(home, cid))
            #expect(row.contains(#"data-unread-count="3" data-mention-count="1""#))
            #expect(row.contains(#"<span class="badge" data-unread="\#(cid)">1</span>"#))
            #expect(home.contains(#"<span class="badge" id="mentions-unread">1</span>"#))
            #expect(home.contains("<title>(1) Team · wsx</title>"))

            // All messages: every unread message counts.
            try await mate.post("/w/\(wid)/c/\(cid)/notify", [("level", "all")])
            row = try #require(Self.row(try await mate.get("/w/\(wid)").text, cid))
            #expect(row.contains(#"<span class="badge" data-unread="\#(cid)">3</span>"#))

            // Muted: dimmed, never bold, plain messages leave no number, but the mention still counts.
            try await mate.post("/w/\(wid)/c/\(cid)/notify", [("level", "mute")])
            home = try await mate.get("/w/\(wid)").text
            row = try #require(Self.row(home, cid))
            #expect(row.hasPrefix(#"<li class="room-item muted"><a"#))
            #expect(row.contains(#"<span class="badge" data-unread="\#(cid)">1</span>"#))
            #expect(home.contains("<title>(1) Team · wsx</title>"))
            // Read: nothing left anywhere.
            try await mate.read("/w/\(wid)/c/\(cid)")
            home = try await mate.get("/w/\(wid)").text
            row = try #require(Self.row(home, cid))
            #expect(row.contains(#"data-unread-count="0" data-mention-count="0""#))
            #expect(row.contains(#"<span class="badge" data-unread="\#(cid)" hidden>0</span>"#))
            #expect(home.contains(#"id="mentions-unread" hidden>0</span>"#))
            #expect(home.contains("<title>Team · wsx</title>"))
        }
    }

    @Test("a DM counts every message at the default level; the menu button says what is unread outside the open room")
    func directMessagesAndTheMenuButton() async throws {
        try await TestApp().run { app in
            let (owner, mate, wid, cid) = try await Self.team(app)
            let mateId = try await app.userId("m@example.com"), ownerId = try await app.userId("o@example.com")
            try await owner.get("/w/\(wid)/dm/\(mateId)")
            for text in ["안녕하세요", "잠깐 통화 가능하세요?"] {
                try await owner.post("/w/\(wid)/dm/\(mateId)/messages", [("content", text)])
            }
            let channel = try await mate.get("/w/\(wid)/c/\(cid)").text
            let dm = try #require(channel.firstMatch(of: /data-unread="(\d+)">2<\/span>/).flatMap { Int64($0.1) })
            #expect(try app.database.query { tx in try tx.rooms.room(id: dm)?.kind } == Room.Kind.dm)
            #expect(channel.contains(#"<span class="menu-badge" id="menu-unread"><span class="menu-badge-count">2</span>"#))
            // In the DM itself nothing else is unread: no badge on the button.
            let inside = try await mate.get("/w/\(wid)/dm/\(ownerId)").text
            #expect(inside.contains(#"<span class="menu-badge" id="menu-unread" hidden><span class="menu-badge-count"></span>"#))
            // A bold room elsewhere (plain channel messages) shows a dot: the badge without a number.
            try await owner.get("/w/\(wid)/c/\(cid)")
            try await owner.post("/w/\(wid)/c/\(cid)/messages", [("content", "공지 확인")])
            let again = try await mate.get("/w/\(wid)/dm/\(ownerId)").text
            #expect(again.contains(#"<span class="menu-badge" id="menu-unread"><span class="menu-badge-count"></span>"#))
            // The script's resync reads the same counts, with mentions.
            let unread = try await mate.get("/w/\(wid)/unread", headers: [.accept: "application/json"]).text
            #expect(unread.contains(#""mentions":{"#))
            #expect(unread.contains(#""\#(cid)":1"#))
        }
    }

    @Test("a mention in a reply kept in its thread counts on the Mentions item until the thread is read")
    func threadMentionsCount() async throws {
        try await TestApp().run { app in
            let (owner, mate, wid, cid) = try await Self.team(app)
            try await owner.get("/w/\(wid)/c/\(cid)")
            try await MessagingTests.say(owner, "/w/\(wid)/c/\(cid)", "스레드 시작")
            let root = try await ThreadTests.lastId(app)
            try await ThreadTests.reply(owner, wid, root, "@Mate 여기 답 주세요")
            try await mate.get("/w/\(wid)/c/\(cid)")
            var home = try await mate.get("/w/\(wid)").text
            #expect(home.contains(#"<span class="badge" id="mentions-unread">1</span>"#))
            try await mate.read("/w/\(wid)/m/\(root)/thread")
            home = try await mate.get("/w/\(wid)").text
            #expect(home.contains(#"id="mentions-unread" hidden>0</span>"#))
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
            let payloads = try app.database.query { tx in
                try tx.inspection.rows("SELECT payload FROM events WHERE type = 'notify.changed' AND user_id = ? ORDER BY id", [m])
                    .map { $0[0] }
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
