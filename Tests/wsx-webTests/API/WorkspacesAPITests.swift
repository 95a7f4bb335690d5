import Foundation
import HTTPTypes
import Testing
import Views
@testable import wsx_web

/// `/v1`'s workspaces as the apps use them (`../shared/APP-API.md` §3.2).
@Suite("The apps' API: workspaces", .timeLimit(.minutes(3)))
struct WorkspacesAPITests {
    /// The web's team (`ChannelTests.team`), its owner and member signed in from apps.
    static func team(_ app: TestSession) async throws -> (owner: APIClient, member: APIClient, workspace: String) {
        _ = try await ChannelTests.team(app)
        let owner = try await signIn(app, "o@example.com"), member = try await signIn(app, "m@example.com")
        let workspace = try #require(try await owner.get("/v1/workspaces").array?.first?["workspace_id"] as? String)
        return (owner, member, workspace)
    }

    static func signIn(_ app: TestSession, _ email: String) async throws -> APIClient {
        let reply = try await app.api.post("/v1/users/login", ["email": email, "password": "correct horse"])
        var client = app.api
        client.accessToken = try #require((reply.object?["token"] as? [String: any Sendable])?["accessToken"] as? String)
        return client
    }

    @Test("create with a cover picture pays the price (E21 once the coins are spent); the list and the detail show it with its first channel and member")
    func create() async throws {
        try await TestApp.withAPI { $0.signupCoins = 10; $0.workspacePrice = 10 }.run { app in
            let (phone, joined) = try await app.api.joined("owner@example.com", nickname: "김민아")
            let made = try await phone.multipart(.post, "/v1/workspaces", [("name", "디자인팀"), ("description", "리뉴얼")], files: [
                .init(field: "image", filename: "WorkSpaceX_1.jpeg", data: Fixture.data("photo.jpg"), contentType: "image/jpeg"),
            ])
            #expect(made.status == .ok)
            let workspaceId = try #require(made["workspace_id"])
            #expect(workspaceId.count == 24 && made["name"] == "디자인팀" && made["description"] == "리뉴얼")
            #expect(made["owner_id"] == joined["user_id"])
            #expect(made["coverImage"]?.wholeMatch(of: #//static/workspaces/WorkSpaceX-1_[0-9a-f]{24}\.jpeg/#) != nil, "\(made.text)")
            #expect(UsersAPITests.isAppDate(made["createdAt"]))

            let again = try await phone.multipart(.post, "/v1/workspaces", [("name", "둘째")])
            #expect(again.code == "E21", "the coins are spent")
            #expect(try await phone.get("/v1/users/me").object?["sesacCoin"] as? Int == 0)

            let list = try #require(try await phone.get("/v1/workspaces").array)
            #expect(list.count == 1 && list[0]["workspace_id"] as? String == workspaceId)
            let detail = try await phone.get("/v1/workspaces/\(workspaceId)")
            let channels = try #require(detail.object?["channels"] as? [[String: any Sendable]])
            #expect(channels.count == 1 && channels[0]["name"] as? String == Lang.ko.strings["default_channel_name"])
            #expect(channels[0]["coverImage"] is NSNull && channels[0]["owner_id"] as? String == joined["user_id"])
            let members = try #require(detail.object?["workspaceMembers"] as? [[String: any Sendable]])
            #expect(members.map { $0["nickname"] as? String } == ["김민아"])
            #expect(try await phone.get("/v1/workspaces/000000000000000000000000").code == "E13")
        }
    }

    @Test("a workspace without a picture still has a cover path; names the caller already uses are E12; a bad name E11")
    func defaults() async throws {
        try await TestApp.withAPI { $0.workspacePrice = 0 }.run { app in
            let (phone, _) = try await app.api.joined("owner@example.com")
            let made = try await phone.post("/v1/workspaces", ["name": "팀"])
            #expect(made.status == .ok && made["coverImage"] == APIStaticPaths.defaultCover && made.object?["description"] is NSNull)
            #expect(try await phone.post("/v1/workspaces", ["name": "팀"]).code == "E12")
            #expect(try await phone.post("/v1/workspaces", ["name": ""]).code == "E11")
            let document = try await phone.multipart(.post, "/v1/workspaces", [("name", "문서")], files: [
                .init(field: "image", filename: "doc.pdf", data: Fixture.data("doc.pdf"), contentType: "application/pdf"),
            ])
            #expect(document.code == "E11", "a cover must be a picture")
            #expect(try await phone.get("/v1/workspaces").array?.count == 1, "nothing made by the refusals")
        }
    }

    @Test("edit: the owner only (E14), a change of nothing is E12; members, search (E11 without a keyword), and another's workspace is E13")
    func editAndSearch() async throws {
        try await TestApp.withAPI().run { app in
            let (owner, member, workspace) = try await Self.team(app)
            #expect(try await member.multipart(.put, "/v1/workspaces/\(workspace)", [("name", "남의 팀")]).code == "E14")
            #expect(try await owner.multipart(.put, "/v1/workspaces/\(workspace)", [("name", "Team"), ("description", "")]).code == "E12")
            let renamed = try await owner.multipart(.put, "/v1/workspaces/\(workspace)", [("name", "우리 팀"), ("description", "함께")])
            #expect(renamed.status == .ok && renamed["name"] == "우리 팀" && renamed["description"] == "함께")

            let members = try #require(try await member.get("/v1/workspaces/\(workspace)/members").array)
            #expect(Set(members.compactMap { $0["nickname"] as? String }) == ["Owner", "Member"])
            let found = try await member.get("/v1/workspaces/\(workspace)/search?keyword=mem")
            #expect((found.object?["workspaceMembers"] as? [[String: any Sendable]])?.map { $0["nickname"] as? String } == ["Member"])
            #expect((found.object?["channels"] as? [[String: any Sendable]])?.isEmpty == true)
            #expect(try await member.get("/v1/workspaces/\(workspace)/search?keyword=").code == "E11")

            let (stranger, _) = try await app.api.joined("stranger@example.com")
            #expect(try await stranger.get("/v1/workspaces/\(workspace)").code == "E13")
            #expect(try await stranger.get("/v1/workspaces/\(workspace)/members").code == "E13")
        }
    }

    @Test("transfer hands the workspace over (owner only); the owner cannot exit (E15), a member can and gets the rest; delete is the owner's")
    func transferExitDelete() async throws {
        try await TestApp.withAPI().run { app in
            let (owner, member, workspace) = try await Self.team(app)
            let memberId = try #require(try await member.get("/v1/users/me")["user_id"])
            #expect(try await owner.get("/v1/workspaces/\(workspace)/exit").code == "E15")
            #expect(try await member.call(.put, "/v1/workspaces/\(workspace)/transfer/ownership", json: ["owner_id": memberId]).code == "E14")
            #expect(try await owner.call(.put, "/v1/workspaces/\(workspace)/transfer/ownership", json: ["owner_id": "nobody"]).code == "E13")
            let handed = try await owner.call(.put, "/v1/workspaces/\(workspace)/transfer/ownership", json: ["owner_id": memberId])
            #expect(handed.status == .ok && handed["owner_id"] == memberId)
            #expect(try await member.get("/v1/workspaces/\(workspace)/exit").code == "E15")
            #expect(try await owner.call(.delete, "/v1/workspaces/\(workspace)").code == "E14")
            let left = try await owner.get("/v1/workspaces/\(workspace)/exit")
            #expect(left.status == .ok && left.array?.isEmpty == true)
            #expect(try await owner.get("/v1/workspaces/\(workspace)").code == "E13")
            let deleted = try await member.call(.delete, "/v1/workspaces/\(workspace)")
            #expect(deleted.status == .ok)
            #expect(try await member.get("/v1/workspaces").array?.isEmpty == true)
        }
    }
}

/// `POST /v1/workspaces/{wid}/members`: the web's invitation, from an app.
@Suite("The apps' API: inviting", .timeLimit(.minutes(3)))
struct InviteAPITests {
    @Test("the owner invites an account by address: the invitee is answered as a Member and accepts on the web; E03 without an account, E12 for a member, E14 for a member inviting")
    func invite() async throws {
        try await TestApp.withAPI().run { app in
            let (owner, member, workspace) = try await WorkspacesAPITests.team(app)
            let guest = try await app.signedInBrowser(email: "guest@example.com", nickname: "손님")
            try await app.confirmAddress("guest@example.com")
            let invited = try await owner.post("/v1/workspaces/\(workspace)/members", ["email": "Guest@example.com"])
            #expect(invited.status == .ok && invited["nickname"] == "손님" && invited["email"] == "guest@example.com")
            #expect(try await owner.get("/v1/workspaces/\(workspace)/members").array?.count == 2, "not a member until they accept")
            let page = try await guest.get("/workspaces")
            #expect(page.text.contains("Team"), "the invitation waits on the guest's workspaces page")

            #expect(try await owner.post("/v1/workspaces/\(workspace)/members", ["email": "nobody@example.com"]).code == "E03")
            #expect(try await owner.post("/v1/workspaces/\(workspace)/members", ["email": "m@example.com"]).code == "E12")
            #expect(try await owner.post("/v1/workspaces/\(workspace)/members", ["email": "not an address"]).code == "E11")
            #expect(try await member.post("/v1/workspaces/\(workspace)/members", ["email": "guest@example.com"]).code == "E14")
        }
    }

    @Test("addresses without accounts count against the hourly invitations: an owner cannot test addresses beyond them (E98)")
    func probing() async throws {
        try await TestApp.withAPI { $0.invitationsPerHour = 4 }.run { app in
            // The team's member came in by one invitation of the four.
            let (owner, _, workspace) = try await WorkspacesAPITests.team(app)
            for index in 1...3 {
                #expect(try await owner.post("/v1/workspaces/\(workspace)/members", ["email": "nobody\(index)@example.com"]).code == "E03")
            }
            #expect(try await owner.post("/v1/workspaces/\(workspace)/members", ["email": "nobody4@example.com"]).code == "E98")
        }
    }
}
