import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import wsx_web

@Suite("Workspaces", .timeLimit(.minutes(5)))
struct WorkspaceTests {
    @Test("creating a workspace spends its price, makes the creator owner, and opens its default channel")
    func createSpendsCoins() async throws {
        try await TestApp().run { app in
            let owner = try await app.signedInBrowser(email: "o@example.com", nickname: "Owner")
            let page = try await owner.get("/workspaces")
            #expect(page.text.contains("Creating a workspace costs 10 coins. You have 10."))
            let wid = try await owner.createWorkspace("  Design Team ", description: "We draw")
            let home = try await owner.get("/w/\(wid)")
            #expect(home.status == .ok)
            #expect(home.text.contains("Workspace created."))
            #expect(home.text.contains(#"data-workspace-name="\#(wid)">Design Team</h1>"#))
            #expect(home.text.contains(">general</span>"))
            let me = try await app.userId("o@example.com")
            #expect(try await app.count("SELECT coin_balance FROM users WHERE id = ?", [me]) == 0)
            let ledger = try app.database.query { tx in
                try tx.inspection.rows("SELECT delta, balance_after, reason FROM coin_ledger WHERE user_id = ? ORDER BY id", [me])
                    .map { $0.joined(separator: " ") }
            }
            #expect(ledger == ["10 10 signup", "-10 0 workspace_created"])
            #expect(try await app.count("SELECT COUNT(*) FROM workspace_members WHERE workspace_id = ? AND user_id = ? AND role = 'owner'", [wid, me]) == 1)
            #expect(try await app.count("""
                SELECT COUNT(*) FROM rooms JOIN room_members ON room_members.room_id = rooms.id
                WHERE rooms.workspace_id = ? AND rooms.is_default = TRUE AND rooms.owner_id = ? AND rooms.name = 'general' AND room_members.user_id = ?
                """, [wid, me, me]) == 1)
        }
    }

    @Test("a Korean creator's default channel is 일반")
    func koreanDefaultChannel() async throws {
        try await TestApp().run { app in
            let owner = try await app.signedInBrowser()
            owner.acceptLanguage = "ko-KR"
            let wid = try await owner.createWorkspace("우리 팀")
            #expect(try await owner.get("/w/\(wid)").text.contains(">일반</span>"))
        }
    }

    @Test("without enough coins: a message linking to the store, and nothing created")
    func notEnoughCoins() async throws {
        try await TestApp().run { app in
            let owner = try await app.signedInBrowser()
            _ = try await owner.createWorkspace("First")
            let before = try await app.workspaceSnapshot()
            try await owner.get("/workspaces")
            let response = try await owner.post("/workspaces", [("name", "Second"), ("description", "")])
            #expect(response.status.code == 402)
            #expect(response.text.contains("Not enough coins: it costs 10 and you have 0."))
            #expect(response.text.contains(#"<a href="/store">"#))
            #expect(response.text.contains(#"value="Second""#))
            #expect(try await app.workspaceSnapshot() == before)
        }
    }

    @Test("ten concurrent creates with coins for one make exactly one workspace and a zero balance")
    func concurrentCreates() async throws {
        try await TestApp().run { app in
            let owner = try await app.signedInBrowser(email: "race@example.com")
            try await owner.get("/workspaces")
            let cookie = owner.cookieHeader, token = owner.csrfToken!
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<10 {
                    group.addTask {
                        let body = TestBrowser.encode([("_csrf", token), ("name", "Race \(index)"), ("description", "")])
                        let response = try await app.client.executeRequest(
                            uri: "/workspaces", method: .post,
                            headers: [.cookie: cookie, .contentType: "application/x-www-form-urlencoded"],
                            body: ByteBuffer(string: body))
                        return Int(response.status.code)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 303 }.count == 1)
            #expect(statuses.filter { $0 == 402 }.count == 9)
            #expect(try await app.count("SELECT COUNT(*) FROM workspaces") == 1)
            #expect(try await app.count("SELECT coin_balance FROM users") == 0)
            #expect(try await app.count("SELECT SUM(delta) FROM coin_ledger") == 0)
        }
    }

    @Test("names are trimmed; empty, over-long or duplicate names come back with a message and the input")
    func nameRules() async throws {
        try await TestApp { $0.signupCoins = 100 }.run { app in
            let owner = try await app.signedInBrowser()
            _ = try await owner.createWorkspace("Taken")
            for (name, message) in [("   ", "Workspace name must be 1 to 50 characters."),
                                    (String(repeating: "워", count: 51), "Workspace name must be 1 to 50 characters."),
                                    ("TAKEN", "You already have a workspace with this name.")] {
                try await owner.get("/workspaces")
                let response = try await owner.post("/workspaces", [("name", name), ("description", "kept text")])
                #expect(response.status == .unprocessableContent)
                #expect(response.text.contains(message))
                #expect(response.text.contains(">kept text</textarea>"))
            }
            #expect(try await app.count("SELECT COUNT(*) FROM workspaces") == 1)
            #expect(try await app.count("SELECT coin_balance FROM users") == 90)
        }
    }

    @Test("the owner edits name and description; a member may not; others get a 404")
    func editing() async throws {
        try await TestApp().run { app in
            let owner = try await app.signedInBrowser(email: "o@example.com")
            let wid = try await owner.createWorkspace("Old name")
            let member = try await app.signedInBrowser(email: "m@example.com")
            try await app.addMember(email: "m@example.com", to: wid, by: owner)
            let stranger = try await app.signedInBrowser(email: "s@example.com")

            try await owner.get("/w/\(wid)/settings")
            let saved = try await owner.post("/w/\(wid)/settings", [("name", "New name"), ("description", "About us")])
            #expect(saved.location == "/w/\(wid)/settings")
            #expect(try await owner.get("/w/\(wid)/settings").text.contains("Workspace saved."))
            #expect(try app.database.query { tx in try tx.workspaces.workspace(id: wid)!.name } == "New name")

            let before = try await app.workspaceSnapshot()
            try await member.get("/w/\(wid)/settings")
            let refused = try await member.post("/w/\(wid)/settings", [("name", "Hijack"), ("description", "")])
            #expect(refused.status == .forbidden)
            #expect(refused.text.contains("Only the workspace owner can do this."))
            try await stranger.get("/workspaces")
            #expect(try await stranger.post("/w/\(wid)/settings", [("name", "Hijack"), ("description", "")]).status == .notFound)
            #expect(try await stranger.get("/w/\(wid)").status == .notFound)
            #expect(try await app.workspaceSnapshot() == before)
        }
    }

    @Test("deleting asks first, naming what is lost, then removes rooms and memberships in one go")
    func deletion() async throws {
        try await TestApp().run { app in
            let owner = try await app.signedInBrowser(email: "o@example.com")
            let wid = try await owner.createWorkspace("Doomed")
            _ = try await owner.createChannel(in: wid, "extra")
            _ = try await app.signedInBrowser(email: "m@example.com")
            try await app.addMember(email: "m@example.com", to: wid, by: owner)

            let before = try await app.workspaceSnapshot()
            try await owner.get("/w/\(wid)/settings")
            let ask = try await owner.post("/w/\(wid)/delete")
            #expect(ask.status == .ok)
            #expect(ask.text.contains("Delete the workspace “Doomed”?"))
            #expect(ask.text.contains("2 channels will be deleted."))
            #expect(ask.text.contains("2 members will lose access to this workspace."))
            #expect(ask.text.contains(#"name="confirm" value="yes""#))
            #expect(try await app.workspaceSnapshot() == before)

            let done = try await owner.confirm("/w/\(wid)/delete")
            #expect(done.location == "/workspaces")
            for table in ["workspaces", "workspace_members", "rooms", "room_members", "audit_log"] {
                #expect(try await app.count("SELECT COUNT(*) FROM \(table)") == 0, "\(table)")
            }
            #expect(try await owner.get("/w/\(wid)").status == .notFound)
        }
    }

    @Test("the owner hands the workspace over with its default channel, then may leave")
    func transferThenLeave() async throws {
        try await TestApp().run { app in
            let owner = try await app.signedInBrowser(email: "o@example.com")
            let wid = try await owner.createWorkspace("Handover")
            let heir = try await app.signedInBrowser(email: "h@example.com", nickname: "Heir")
            try await app.addMember(email: "h@example.com", to: wid, by: owner)
            let (o, h) = (try await app.userId("o@example.com"), try await app.userId("h@example.com"))

            try await owner.get("/w/\(wid)/settings")
            #expect(try await owner.post("/w/\(wid)/leave").status == .conflict)

            let ask = try await owner.post("/w/\(wid)/transfer", [("owner_id", "\(h)")])
            #expect(ask.text.contains("Transfer “Handover” to Heir?"))
            #expect(try await app.count("SELECT owner_id FROM workspaces") == Int(o))
            try await owner.confirm("/w/\(wid)/transfer", [("owner_id", "\(h)")])
            #expect(try await app.count("SELECT owner_id FROM workspaces") == Int(h))
            #expect(try await app.count("SELECT owner_id FROM rooms WHERE is_default = TRUE") == Int(h))
            #expect(try await app.count("SELECT COUNT(*) FROM workspace_members WHERE user_id = ? AND role = 'member'", [o]) == 1)
            #expect(try await heir.get("/w/\(wid)/audit").status == .ok)

            let left = try await owner.confirm("/w/\(wid)/leave")
            #expect(left.location == "/workspaces")
            #expect(try await app.count("SELECT COUNT(*) FROM workspace_members WHERE user_id = ?", [o]) == 0)
            #expect(try await app.count("SELECT COUNT(*) FROM room_members WHERE user_id = ?", [o]) == 0)
            #expect(try await owner.get("/w/\(wid)").status == .notFound)
        }
    }

    @Test("a member who owns a channel must hand it over before leaving")
    func channelOwnerCannotLeave() async throws {
        try await TestApp().run { app in
            let owner = try await app.signedInBrowser(email: "o@example.com")
            let wid = try await owner.createWorkspace("W")
            let member = try await app.signedInBrowser(email: "m@example.com")
            try await app.addMember(email: "m@example.com", to: wid, by: owner)
            _ = try await member.createChannel(in: wid, "mine")
            let refused = try await member.confirm("/w/\(wid)/leave")
            #expect(refused.status == .conflict)
            #expect(refused.text.contains("You own channels in this workspace."))
            #expect(try await app.count("SELECT COUNT(*) FROM workspace_members") == 2)
        }
    }

    @Test("the audit log records who did what, for the owner only")
    func auditLog() async throws {
        try await TestApp().run { app in
            let owner = try await app.signedInBrowser(email: "o@example.com", nickname: "Boss")
            let wid = try await owner.createWorkspace("Logged")
            let member = try await app.signedInBrowser(email: "m@example.com", nickname: "Minji")
            try await app.addMember(email: "m@example.com", to: wid, by: owner)
            _ = try await owner.createChannel(in: wid, "news")
            let log = try await owner.get("/w/\(wid)/audit")
            #expect(log.status == .ok)
            for text in ["created the workspace", "invited", "created a channel", #"<td data-label="Who">Boss</td>"#,
                         #"<td data-label="Whom">Minji</td>"#, "news"] {
                #expect(log.text.contains(text), "\(text)")
            }
            #expect(log.text.contains(#"<time datetime=""#))
            #expect(log.text.contains(#"<td data-label="Detail">by invitation</td>"#))
            // Every word of it in Korean: no "invite" left over from the record.
            _ = try await owner.post("/lang", [("lang", "ko"), ("next", "/workspaces")])
            let korean = try await owner.get("/w/\(wid)/audit").text
            #expect(korean.contains(#"<td data-label="내용">초대를 받아서</td>"#) && korean.contains("참여"))
            #expect(!korean.contains(">invite<"))
            #expect(try await member.get("/w/\(wid)/audit").status == .forbidden)
        }
    }
}
