import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import wsx_web

/// `/v1`'s channels, chats and DMs as the apps use them (`../shared/APP-API.md` §3.3, §3.4, §7).
@Suite("The apps' API: channels, chats and DMs", .timeLimit(.minutes(3)))
struct ChatsAPITests {
    typealias Object = [String: any Sendable]

    /// The opaque id of the web's channel `name` in `workspace`, as the owner's app lists it.
    static func channelId(_ app: APIClient, _ workspace: String, _ name: String) async throws -> String {
        let list = try #require(try await app.get("/v1/workspaces/\(workspace)/channels").array)
        return try #require(list.first { $0["name"] as? String == name }?["channel_id"] as? String)
    }

    @Test("reading a channel's chats joins it; a post with files answers ChannelChat and shows on the web; the web's posts come back after the cursor, in order")
    func channelChats() async throws {
        try await TestApp.withAPI().run { app in
            let (ownerWeb, _, wid) = try await ChannelTests.team(app)
            let cid = try await ownerWeb.createChannel(in: wid, "공지", description: "알림")
            _ = try await MessagingTests.say(ownerWeb, "/w/\(wid)/c/\(cid)", "첫 소식")
            // The test's clock stands still: each post below comes a second after the one before.
            app.clock.advance(by: 1)
            let owner = try await WorkspacesAPITests.signIn(app, "o@example.com")
            let member = try await WorkspacesAPITests.signIn(app, "m@example.com")
            let workspace = try #require(try await owner.get("/v1/workspaces").array?.first?["workspace_id"] as? String)
            let channel = try await Self.channelId(owner, workspace, "공지")
            #expect(try await member.get("/v1/workspaces/\(workspace)/my-channels").array?.contains { $0["name"] as? String == "공지" } == false)

            let history = try #require(try await member.get("/v1/workspaces/\(workspace)/channels/\(channel)/chats").array)
            #expect(history.map { $0["content"] as? String } == ["첫 소식"])
            #expect(history[0]["channel_id"] as? String == channel && history[0]["channelName"] as? String == "공지")
            #expect((history[0]["user"] as? Object)?["nickname"] as? String == "Owner")
            #expect(try await member.get("/v1/workspaces/\(workspace)/my-channels").array?.contains { $0["name"] as? String == "공지" } == true,
                    "reading joined the channel")

            let posted = try await member.multipart(.post, "/v1/workspaces/\(workspace)/channels/\(channel)/chats", [("content", "앱에서 보낸 사진")],
                                                    files: [.init(filename: "WorkSpaceX_사진.jpeg", data: Fixture.data("photo.jpg"), contentType: "image/jpeg"),
                                                            .init(filename: "보고서.pdf", data: Fixture.data("doc.pdf"), contentType: "application/pdf")])
            #expect(posted.status == .ok, "\(posted.text)")
            let files = try #require(posted.object?["files"] as? [String])
            #expect(files.count == 2)
            #expect(files[0].wholeMatch(of: #//static/channelChats/WorkSpaceX-사진_[0-9a-f]{24}\.jpeg/#) != nil, "\(files)")
            #expect(files[1].wholeMatch(of: #//static/channelChats/보고서_[0-9a-f]{24}\.pdf/#) != nil, "\(files)")
            #expect((posted.object?["chat_id"] as? String)?.count == 24 && UsersAPITests.isAppDate(posted["createdAt"]))
            #expect(try await ownerWeb.get("/w/\(wid)/c/\(cid)").text.contains("앱에서 보낸 사진"), "the web shows the app's post")

            app.clock.advance(by: 1)
            _ = try await MessagingTests.say(ownerWeb, "/w/\(wid)/c/\(cid)", "웹에서 답장")
            let cursor = try #require(posted["createdAt"])
            let after = try #require(try await member.get("/v1/workspaces/\(workspace)/channels/\(channel)/chats?cursor_date=\(cursor)").array)
            #expect(after.map { $0["content"] as? String } == ["웹에서 답장"], "strictly after the cursor")
            let all = try #require(try await member.get("/v1/workspaces/\(workspace)/channels/\(channel)/chats?cursor_date=").array)
            #expect(all.map { $0["content"] as? String } == ["첫 소식", "앱에서 보낸 사진", "웹에서 답장"])
            #expect(try await member.get("/v1/workspaces/\(workspace)/channels/\(channel)/chats?cursor_date=yesterday").code == "E11")

            let unread = try await owner.get("/v1/workspaces/\(workspace)/channels/\(channel)/unreads?after=\(try #require(history[0]["createdAt"] as? String))")
            #expect(unread.object?["count"] as? Int == 1 && unread["channel_id"] == channel && unread["name"] == "공지",
                    "the member's post after the first; the owner's own reply does not count")
        }
    }

    @Test("a post from an app is live on a teammate's open page stream; an empty post is E11; a private channel is E13 to outsiders")
    func liveAndRefusals() async throws {
        try await TestApp.withAPI().run(.live) { app in
            let (ownerWeb, memberWeb, wid) = try await ChannelTests.team(app)
            let owner = try await WorkspacesAPITests.signIn(app, "o@example.com")
            let workspace = try #require(try await owner.get("/v1/workspaces").array?.first?["workspace_id"] as? String)
            let general = try #require(try await owner.get("/v1/workspaces/\(workspace)/my-channels").array?.first?["channel_id"] as? String)
            _ = try await memberWeb.get("/w/\(wid)")
            let latest = try await app.settledEventId()
            let seen = try await EventStreamClient.connect(port: app.client.port!, headers: RealtimeTests.headers(memberWeb, lastEventId: String(latest))) { stream in
                _ = try await stream.readHead()
                let reply = try await owner.multipart(.post, "/v1/workspaces/\(workspace)/channels/\(general)/chats", [("content", "앱에서 실시간으로")])
                #expect(reply.status == .ok)
                while let event = try await stream.next() {
                    if event.type == "message.created" { return event.data.contains("앱에서 실시간으로") }
                }
                return false
            }
            #expect(seen)
            #expect(try await owner.multipart(.post, "/v1/workspaces/\(workspace)/channels/\(general)/chats", [("content", "  ")]).code == "E11")

            let secret = try await ownerWeb.post("/w/\(wid)/channels", [("name", "비밀"), ("description", ""), ("visibility", "private")])
            #expect(secret.status == .seeOther)
            let member = try await WorkspacesAPITests.signIn(app, "m@example.com")
            let list = try #require(try await member.get("/v1/workspaces/\(workspace)/channels").array)
            #expect(!list.contains { $0["name"] as? String == "비밀" }, "a private channel is not listed to outsiders")
            let secretId = try await Self.channelId(owner, workspace, "비밀")
            #expect(try await member.get("/v1/workspaces/\(workspace)/channels/\(secretId)/chats").code == "E13")
            #expect(try await member.get("/v1/workspaces/\(workspace)/channels/\(secretId)").code == "E13")
        }
    }

    @Test("a long history streams whole and in order, across pages; thread replies stay out of the channel's chats")
    func longHistory() async throws {
        try await TestApp.withAPI().run { app in
            let (ownerWeb, _, wid) = try await ChannelTests.team(app)
            let owner = try await WorkspacesAPITests.signIn(app, "o@example.com")
            let workspace = try #require(try await owner.get("/v1/workspaces").array?.first?["workspace_id"] as? String)
            let general = try #require(try await owner.get("/v1/workspaces/\(workspace)/my-channels").array?.first?["channel_id"] as? String)
            let (room, author) = try app.database.query { tx in
                let user = try tx.accounts.user(emailKey: "o@example.com")!
                return (try tx.rooms.rooms(workspaceId: wid).first { $0.isDefault }!, user)
            }
            let count = ChatsAPIController.pageSize * 2 + 37
            for index in 1...count {
                _ = try await app.services.messages.post(in: room, authorId: author.id!, text: "글 \(index)")
                if index.isMultiple(of: 100) { app.clock.advance(by: 0.001) }
            }
            let root = try #require(try app.database.query { tx in try tx.messages.chats(roomId: room.id!, after: nil, limit: 1) }.first)
            _ = try await ownerWeb.post("/w/\(wid)/m/\(root.id)/replies", [("content", "스레드 답글")])
            let chats = try #require(try await owner.get("/v1/workspaces/\(workspace)/channels/\(general)/chats").array)
            #expect(chats.count == count)
            #expect(chats.map { $0["content"] as? String } == (1...count).map { "글 \($0)" })
            #expect(Set(chats.compactMap { $0["chat_id"] as? String }).count == count)
        }
    }

    @Test("DMs: open one with a teammate (twice: the same room), post, list it with the other person; a stranger's id is E13")
    func directMessages() async throws {
        try await TestApp.withAPI().run { app in
            let (_, memberWeb, wid) = try await ChannelTests.team(app)
            let owner = try await WorkspacesAPITests.signIn(app, "o@example.com")
            let member = try await WorkspacesAPITests.signIn(app, "m@example.com")
            let workspace = try #require(try await owner.get("/v1/workspaces").array?.first?["workspace_id"] as? String)
            let memberId = try #require(try await member.get("/v1/users/me")["user_id"])
            let opened = try await owner.post("/v1/workspaces/\(workspace)/dms", ["opponent_id": memberId])
            #expect(opened.status == .ok && (opened.object?["user"] as? Object)?["user_id"] as? String == memberId)
            let roomId = try #require(opened["room_id"])
            #expect(try await owner.post("/v1/workspaces/\(workspace)/dms", ["opponent_id": memberId])["room_id"] == roomId)
            #expect(try await owner.post("/v1/workspaces/\(workspace)/dms", ["opponent_id": "000000000000000000000000"]).code == "E13")
            app.clock.advance(by: 1)

            let sent = try await owner.multipart(.post, "/v1/workspaces/\(workspace)/dms/\(roomId)/chats", [("content", "안녕하세요")])
            #expect(sent.status == .ok && sent["room_id"] == roomId && (sent["dm_id"])?.count == 24 && sent.object?["channel_id"] == nil)
            let ownerId = try #require(try await owner.get("/v1/users/me")["user_id"])
            #expect(try await memberWeb.get("/w/\(wid)/dm/\(try await RealtimeTests.userId(app, "o@example.com"))").text.contains("안녕하세요"))
            let rooms = try #require(try await member.get("/v1/workspaces/\(workspace)/dms").array)
            #expect(rooms.count == 1 && (rooms[0]["user"] as? Object)?["user_id"] as? String == ownerId)
            let chats = try #require(try await member.get("/v1/workspaces/\(workspace)/dms/\(roomId)/chats").array)
            #expect(chats.map { $0["content"] as? String } == ["안녕하세요"])
            let unread = try await member.get("/v1/workspaces/\(workspace)/dms/\(roomId)/unreads?after=\(try #require(opened["createdAt"]))")
            #expect(unread.object?["count"] as? Int == 1 && unread["room_id"] == roomId)

            let (stranger, _) = try await app.api.joined("stranger@example.com")
            #expect(try await stranger.get("/v1/workspaces/\(workspace)/dms/\(roomId)/chats").code == "E13")
        }
    }
}
