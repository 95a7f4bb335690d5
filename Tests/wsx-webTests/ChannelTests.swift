import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import wsx_web

@Suite("Channels", .timeLimit(.minutes(5)))
struct ChannelTests {
    /// An owner, a member (in the default channel), and a workspace.
    static func team(_ app: TestSession) async throws -> (owner: TestBrowser, member: TestBrowser, wid: Int64) {
        let owner = try await app.signedInBrowser(email: "o@example.com", nickname: "Owner")
        let wid = try await owner.createWorkspace("Team")
        let member = try await app.signedInBrowser(email: "m@example.com", nickname: "Member")
        try await app.addMember(email: "m@example.com", to: wid, by: owner)
        return (owner, member, wid)
    }

    @Test("create, browse with joined marks and counts, join, and the channel page header")
    func createBrowseJoin() async throws {
        try await TestApp().run { app in
            let (owner, member, wid) = try await Self.team(app)
            let cid = try await owner.createChannel(in: wid, " 공지채널 ", description: "Announcements")
            let directory = try await member.get("/w/\(wid)/channels")
            #expect(directory.text.contains(#"data-room-name="\#(cid)">공지채널</a>"#))
            #expect(directory.text.contains(#"action="/w/\#(wid)/c/\#(cid)/join""#))
            let preview = try await member.get("/w/\(wid)/c/\(cid)")
            #expect(preview.text.contains("You are not in this channel."))
            try await member.post("/w/\(wid)/c/\(cid)/join")
            let page = try await member.get("/w/\(wid)/c/\(cid)")
            #expect(page.text.contains(#"<span data-room-name="\#(cid)">공지채널</span></h1>"#))
            #expect(page.text.contains("2 members"))
            #expect(page.text.contains(#"href="/w/\#(wid)/c/\#(cid)/settings""#))
            #expect(!page.text.contains("You are not in this channel."))
            #expect(try await member.get("/w/\(wid)/channels").text.contains("Joined"))
        }
    }

    @Test("a member who has not joined a channel reads its messages, read-only, with a Join button; nothing is marked read")
    func nonMembersReadRecentMessages() async throws {
        try await TestApp().run { app in
            let (owner, member, wid) = try await Self.team(app)
            let cid = try await owner.createChannel(in: wid, "news")
            for text in ["첫 소식", "둘째 소식", "셋째 소식"] { _ = try await MessagingTests.say(owner, "/w/\(wid)/c/\(cid)", text) }
            let preview = try await member.get("/w/\(wid)/c/\(cid)").text
            for text in ["첫 소식", "둘째 소식", "셋째 소식"] { #expect(preview.contains(text)) }
            #expect(!preview.contains("No messages yet"))
            #expect(preview.contains("You are not in this channel."))
            #expect(preview.contains(#"action="/w/\#(wid)/c/\#(cid)/join""#))
            #expect(!preview.contains(#"id="composer""#))
            #expect(!preview.contains(#"id="unread-line""#) && !preview.contains("data-read-url"))
            // Reading it as a visitor leaves no membership behind; joining starts them as a member.
            #expect(try await app.count("SELECT COUNT(*) FROM room_members WHERE room_id = ? AND user_id = ?",
                                        [cid, try await app.userId("m@example.com")]) == 0)
            // Someone outside the workspace still gets nothing.
            let stranger = try await app.signedInBrowser(email: "s@example.com", nickname: "Stranger")
            #expect(try await stranger.get("/w/\(wid)/c/\(cid)").status == .notFound)
        }
    }

    @Test("channel names are unique in a workspace in any case, and 1–30 characters")
    func channelNames() async throws {
        try await TestApp().run { app in
            let (owner, _, wid) = try await Self.team(app)
            _ = try await owner.createChannel(in: wid, "Random")
            for (name, message) in [("random", "This workspace already has a channel with this name."),
                                    ("GENERAL", "This workspace already has a channel with this name."),
                                    (String(repeating: "채", count: 31), "Channel name must be 1 to 30 characters."),
                                    ("", "Channel name must be 1 to 30 characters.")] {
                try await owner.get("/w/\(wid)/channels")
                let response = try await owner.post("/w/\(wid)/channels", [("name", name), ("description", "")])
                #expect(response.status == .unprocessableContent, "\(name)")
                #expect(response.text.contains(message))
            }
            #expect(try await app.count("SELECT COUNT(*) FROM rooms") == 2)
        }
    }

    @Test("nobody leaves the default channel; a channel owner hands over before leaving")
    func leavingRules() async throws {
        try await TestApp().run { app in
            let (owner, member, wid) = try await Self.team(app)
            let general = try await app.count("SELECT id FROM rooms WHERE is_default = TRUE")
            let before = try await app.workspaceSnapshot()
            #expect(try await member.confirm("/w/\(wid)/c/\(general)/leave").status == .conflict)
            #expect(try await app.workspaceSnapshot() == before)

            let cid = try await owner.createChannel(in: wid, "project")
            try await member.get("/w/\(wid)/channels")
            try await member.post("/w/\(wid)/c/\(cid)/join")
            #expect(try await owner.confirm("/w/\(wid)/c/\(cid)/leave").status == .conflict)
            let m = try await app.userId("m@example.com")
            let ask = try await owner.post("/w/\(wid)/c/\(cid)/transfer", [("owner_id", "\(m)")])
            #expect(ask.text.contains("Transfer the channel “project” to Member?"))
            try await owner.confirm("/w/\(wid)/c/\(cid)/transfer", [("owner_id", "\(m)")])
            #expect(try await app.count("SELECT owner_id FROM rooms WHERE id = ?", [cid]) == Int(m))
            #expect(try await owner.confirm("/w/\(wid)/c/\(cid)/leave").location == "/w/\(wid)")
            #expect(try await app.count("SELECT COUNT(*) FROM room_members WHERE room_id = ?", [cid]) == 1)
        }
    }

    @Test("the channel owner and the workspace owner edit and delete; other members get a 403")
    func managing() async throws {
        try await TestApp().run { app in
            let (owner, member, wid) = try await Self.team(app)
            let mine = try await member.createChannel(in: wid, "member-made")
            let theirs = try await owner.createChannel(in: wid, "owner-made")
            try await member.get("/w/\(wid)/channels")
            try await member.post("/w/\(wid)/c/\(theirs)/join")

            // The member manages their own channel...
            try await member.get("/w/\(wid)/c/\(mine)/settings")
            #expect(try await member.post("/w/\(wid)/c/\(mine)/settings", [("name", "renamed"), ("description", "d")]).status == .seeOther)
            // ...but not the owner's.
            let before = try await app.workspaceSnapshot()
            let refused = try await member.post("/w/\(wid)/c/\(theirs)/settings", [("name", "hijack"), ("description", "")])
            #expect(refused.status == .forbidden)
            #expect(refused.text.contains("Only the channel owner or the workspace owner can do this."))
            #expect(try await member.confirm("/w/\(wid)/c/\(theirs)/delete").status == .forbidden)
            #expect(try await app.workspaceSnapshot() == before)
            // The workspace owner manages every channel, and deleting asks first.
            // It counts that channel's messages, not the workspace's: one here, two elsewhere.
            _ = try await MessagingTests.say(member, "/w/\(wid)/c/\(mine)", "the only one here")
            let general = Int64(try await app.count("SELECT id FROM rooms WHERE workspace_id = ? AND is_default = TRUE", [wid]))
            for text in ["elsewhere 1", "elsewhere 2"] { _ = try await MessagingTests.say(owner, "/w/\(wid)/c/\(general)", text) }
            let ask = try await owner.post("/w/\(wid)/c/\(mine)/delete")
            #expect(ask.text.contains("Delete the channel “renamed”?"))
            #expect(ask.text.contains("and 1 message will be deleted."))
            #expect(try await owner.confirm("/w/\(wid)/c/\(mine)/delete").location == "/w/\(wid)")
            #expect(try await app.count("SELECT COUNT(*) FROM rooms WHERE id = ?", [mine]) == 0)
            #expect(try await app.count("SELECT COUNT(*) FROM room_members WHERE room_id = ?", [mine]) == 0)
            #expect(try await member.get("/w/\(wid)/c/\(mine)").status == .notFound)
            // The default channel is never deleted on its own.
            #expect(try await owner.confirm("/w/\(wid)/c/\(general)/delete").status == .conflict)
        }
    }

    @Test("a renamed channel publishes room.updated to its members, in the same transaction")
    func renamePublishes() async throws {
        try await TestApp().run { app in
            let (owner, _, wid) = try await Self.team(app)
            let cid = try await owner.createChannel(in: wid, "before")
            try await owner.get("/w/\(wid)/c/\(cid)/settings")
            try await owner.post("/w/\(wid)/c/\(cid)/settings", [("name", "after"), ("description", "")])
            let payload = try app.database.query { tx in
                try tx.inspection.rows("SELECT payload FROM events WHERE type = 'room.updated' AND room_id = ?", [cid]).first?.first
            }
            #expect(payload?.contains(#""name":"after""#) == true)
        }
    }

    @Test("a channel of another workspace is not found through this one")
    func crossWorkspace() async throws {
        try await TestApp().run { app in
            let (owner, _, wid) = try await Self.team(app)
            let other = try await app.signedInBrowser(email: "x@example.com")
            let otherWid = try await other.createWorkspace("Other")
            let foreign = try await other.createChannel(in: otherWid, "secret")
            #expect(try await owner.get("/w/\(wid)/c/\(foreign)").status == .notFound)
            #expect(try await owner.get("/w/\(otherWid)/c/\(foreign)").status == .notFound)
        }
    }
}
