import Foundation
import HummingbirdTesting
import Testing
@testable import wsx_web

/// Where signing in and `/` open: the room viewed last, as long as one may still read it,
/// else the default channel, else the list of workspaces.
@Suite("Where you were", .timeLimit(.minutes(5)))
struct LastRoomTests {
    @Test("signing in opens the room viewed last, a DM too; / goes there as well")
    func signInOpensLastRoom() async throws {
        try await TestApp().run { app in
            let (a, b, wid, general) = try await MessagingTests.team(app)
            // Never viewed a room: the workspace's default channel.
            #expect(try await b.get("/").location == "/w/\(wid)/c/\(general)")
            let design = try await a.createChannel(in: wid, "디자인")
            try await a.get("/w/\(wid)/c/\(design)")
            #expect(try await a.get("/").location == "/w/\(wid)/c/\(design)")

            // Back and forth: a page served again from memory is a view too.
            for _ in 0..<2 {
                try await a.get("/w/\(wid)/c/\(general)")
                try await a.get("/w/\(wid)/c/\(design)")
            }
            #expect(try await a.get("/").location == "/w/\(wid)/c/\(design)")
            try await a.get("/w/\(wid)/c/\(general)")
            #expect(try await a.get("/").location == "/w/\(wid)/c/\(general)")
            try await a.get("/w/\(wid)/c/\(design)")

            let again = app.browser()
            let signedIn = try await again.logIn(email: "a@example.com", password: "correct horse")
            #expect(signedIn.location == "/w/\(wid)/c/\(design)")
            #expect(try await again.get("/").location == "/w/\(wid)/c/\(design)")

            // A DM is a room like any other; its path names the other person.
            let bob = try await app.userId("b@example.com")
            try await MessagingTests.say(a, "/w/\(wid)/dm/\(bob)", "안녕하세요")
            try await a.get("/w/\(wid)/dm/\(bob)")
            #expect(try await again.get("/").location == "/w/\(wid)/dm/\(bob)")
        }
    }

    @Test("a room one may no longer read is not opened: the default channel instead; no workspace, the list")
    func unreadableRoomIsSkipped() async throws {
        try await TestApp().run { app in
            let (a, b, wid, general) = try await MessagingTests.team(app)
            let secret = try await a.createChannel(in: wid, "비밀")
            try await b.post("/w/\(wid)/c/\(secret)/join")
            try await b.get("/w/\(wid)/c/\(secret)")
            #expect(try await b.get("/").location == "/w/\(wid)/c/\(secret)")
            // Leaving a public channel still lets one read it: it stays the place to return to.
            try await b.post("/w/\(wid)/c/\(secret)/leave")
            #expect(try await b.get("/").location == "/w/\(wid)/c/\(secret)")
            // Deleted: gone.
            try await a.post("/w/\(wid)/c/\(secret)/delete", [("confirm", "yes")])
            #expect(try await b.get("/").location == "/w/\(wid)/c/\(general)")
            // Out of the workspace: nothing of it.
            try await b.post("/w/\(wid)/leave", [("confirm", "yes")])
            #expect(try await b.get("/").location == "/workspaces")
            #expect(try await app.browser().get("/").location == "/login")
        }
    }
}

@Suite("Join links on the way in", .timeLimit(.minutes(5)))
struct JoinOnSignInTests {
    @Test("signing up or logging in through a join link joins at once; a used-up link shows its own page")
    func joinsOnTheWayIn() async throws {
        try await TestApp().run { app in
            let owner = try await app.signedInBrowser(email: "o@example.com", nickname: "Owner")
            let wid = try await owner.createWorkspace("팀")
            try await owner.get("/w/\(wid)/members")
            try await owner.post("/w/\(wid)/join-link", [("expires", "7d"), ("max_uses", "1")])
            let link = try #require(try await owner.get("/w/\(wid)/members").text.firstMatch(of: /\/join\/([A-Za-z0-9_-]+)/))
            let joinPath = String(link.0)

            let newcomer = app.browser()
            try await newcomer.get("/signup?next=" + joinPath)
            let signedUp = try await newcomer.post("/signup", [("email", "n@example.com"), ("nickname", "준"), ("phone", ""),
                                                               ("password", "correct horse"), ("password_confirm", "correct horse"),
                                                               ("next", joinPath)])
            #expect(signedUp.location == "/w/\(wid)")
            #expect(try await app.count("SELECT COUNT(*) FROM workspace_members WHERE workspace_id = ?", [wid]) == 2)

            // The link is used up: someone logging in through it lands on its page, which says so.
            _ = try await app.signedInBrowser(email: "late@example.com", nickname: "Late")
            let late = app.browser()
            try await late.get("/login?next=" + joinPath)
            let loggedIn = try await late.post("/login", [("email", "late@example.com"), ("password", "correct horse"),
                                                          ("next", joinPath)])
            #expect(loggedIn.location == joinPath)
            #expect(try await app.count("SELECT COUNT(*) FROM workspace_members WHERE workspace_id = ?", [wid]) == 2)
        }
    }
}
