import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import wsx_web

/// Private channels: invisible to everyone outside them (the workspace owner included, who
/// only sees that they exist), grown by their members, deleted by the owner from the
/// workspace settings, and turned public or private by their owner.
@Suite("Private channels", .timeLimit(.minutes(5)))
struct PrivateChannelTests {
    /// Alice owns the workspace; Bob and Carol are members. Bob creates a private channel with a
    /// message in it; Alice and Carol are not in it.
    static func setUp(_ app: TestSession) async throws
        -> (a: TestBrowser, b: TestBrowser, c: TestBrowser, wid: Int64, cid: Int64, mid: Int64) {
        let (a, b, wid, _) = try await MessagingTests.team(app)
        let c = try await app.signedInBrowser(email: "c@example.com", nickname: "Carol")
        try await app.addMember(email: "c@example.com", to: wid, by: a)
        try await b.get("/w/\(wid)/channels")
        let created = try await b.post("/w/\(wid)/channels", [("name", "인사팀"), ("description", "급여 이야기"), ("visibility", "private")])
        let cid = try #require(Int64(created.location?.split(separator: "/").last ?? ""))
        try await MessagingTests.say(b, "/w/\(wid)/c/\(cid)", "연봉 협상 일정")
        let mid = Int64(try await app.count("SELECT MAX(id) FROM messages"))
        return (a, b, c, wid, cid, mid)
    }

    @Test("outside a private channel it does not exist: not listed, not searchable, every route a 404, nothing announced")
    func invisible() async throws {
        try await TestApp().run { app in
            let (a, b, c, wid, cid, mid) = try await Self.setUp(app)
            let channel = "/w/\(wid)/c/\(cid)"
            #expect(try await b.get(channel).text.contains(#"aria-label="Private""#))
            #expect(try await b.get("/w/\(wid)/channels").text.contains("인사팀"))
            for outsider in [a, c] {
                #expect(!(try await outsider.get("/w/\(wid)/channels")).text.contains("인사팀"))
                #expect(!(try await outsider.get("/w/\(wid)")).text.contains("인사팀"))
                #expect(!(try await outsider.get("/w/\(wid)/search?q=인사")).text.contains("인사팀"))
                #expect(!(try await outsider.get("/w/\(wid)/search?q=연봉")).text.contains("협상 일정"))
                for path in [channel, channel + "/settings", channel + "/pins", "/w/\(wid)/m/\(mid)/reactions"] {
                    #expect(try await outsider.get(path).status == .notFound, "\(path)")
                }
                let before = try await app.workspaceSnapshot()
                for (path, fields) in [(channel + "/join", []), (channel + "/messages", [("content", "엿보기")]),
                                       (channel + "/members", [("member", "3")]), (channel + "/typing", []),
                                       ("/w/\(wid)/m/\(mid)/pin", []), ("/w/\(wid)/m/\(mid)/reactions", [("emoji", "👍")])] {
                    #expect(try await outsider.post(path, fields).status == .notFound, "\(path)")
                }
                #expect(try await app.workspaceSnapshot() == before)
            }
            // The workspace heard of no new channel.
            #expect(try await app.count("SELECT COUNT(*) FROM events WHERE type = 'channel.created'") == 0)
        }
    }

    @Test("its members add people from the workspace, who then find and read it")
    func membersAddPeople() async throws {
        try await TestApp().run { app in
            let (_, b, c, wid, cid, _) = try await Self.setUp(app)
            let carol = try await app.userId("c@example.com")
            let settings = try await b.get("/w/\(wid)/c/\(cid)/settings")
            #expect(settings.text.contains(#"<option value="\#(carol)">Carol</option>"#))
            let added = try await b.post("/w/\(wid)/c/\(cid)/members", [("member", String(carol))])
            #expect(added.status == .seeOther)
            #expect(try await c.get("/w/\(wid)/c/\(cid)").text.contains("연봉 협상 일정"))
            #expect(try await c.get("/w/\(wid)/channels").text.contains("인사팀"))
            // Someone outside the workspace cannot be added.
            let stranger = try await app.signedInBrowser(email: "s@example.com", nickname: "Stranger")
            _ = stranger
            let strangerId = try await app.userId("s@example.com")
            #expect(try await b.post("/w/\(wid)/c/\(cid)/members", [("member", String(strangerId))]).status == .conflict)
            #expect(try await app.count("SELECT COUNT(*) FROM room_members WHERE room_id = ?", [cid]) == 2)
        }
    }

    @Test("the workspace owner sees it exists, with its member count and not its messages, and may delete it")
    func ownerDeletes() async throws {
        try await TestApp().run { app in
            let (a, _, _, wid, cid, _) = try await Self.setUp(app)
            let settings = try await a.get("/w/\(wid)/settings")
            #expect(settings.text.contains("인사팀"))
            #expect(!settings.text.contains("연봉"))
            #expect(settings.text.contains(#"action="/w/\#(wid)/c/\#(cid)/delete""#))
            let asked = try await a.post("/w/\(wid)/c/\(cid)/delete")
            #expect(asked.status == .ok)
            #expect(asked.text.contains("인사팀"))
            let deleted = try await a.post("/w/\(wid)/c/\(cid)/delete", [("confirm", "yes")])
            #expect(deleted.status == .seeOther)
            #expect(try await app.count("SELECT COUNT(*) FROM rooms WHERE id = ?", [cid]) == 0)
            // Only its members were told.
            let general = try await app.count("SELECT id FROM rooms WHERE workspace_id = ? AND is_default = TRUE", [wid])
            #expect(try await app.count("SELECT COUNT(*) FROM events WHERE type = 'room.deleted' AND room_id = ?", [general]) == 0)
        }
    }

    @Test("its owner makes it public after a page saying its history opens; private again keeps only its members")
    func visibility() async throws {
        try await TestApp().run { app in
            let (a, b, c, wid, cid, _) = try await Self.setUp(app)
            let channel = "/w/\(wid)/c/\(cid)"
            // Someone else in it may not change who can find it.
            let carol = try await app.userId("c@example.com")
            try await b.get(channel + "/settings")
            try await b.post(channel + "/members", [("member", String(carol))])
            try await c.get(channel + "/settings")
            #expect(try await c.post(channel + "/visibility", [("visibility", "public")]).status == .forbidden)

            try await b.get(channel + "/settings")
            let asked = try await b.post(channel + "/visibility", [("visibility", "public")])
            #expect(asked.status == .ok)
            #expect(asked.text.contains("including what was said while it was private"))
            #expect(try await a.get(channel).status == .notFound)
            #expect(try await b.post(channel + "/visibility", [("visibility", "public"), ("confirm", "yes")]).status == .seeOther)
            #expect(try await a.get(channel).text.contains("연봉 협상 일정"))
            #expect(try await app.count("SELECT COUNT(*) FROM events WHERE type = 'channel.created'") == 1)

            try await b.post(channel + "/visibility", [("visibility", "private")])
            #expect(try await a.get(channel).status == .notFound)
            #expect(try await c.get(channel).status == .ok)
            // The default channel is everyone's.
            let general = try await app.count("SELECT id FROM rooms WHERE workspace_id = ? AND is_default = TRUE", [wid])
            try await a.get("/w/\(wid)/c/\(general)/settings")
            #expect(try await a.post("/w/\(wid)/c/\(general)/visibility", [("visibility", "private")]).status == .conflict)
        }
    }
}
