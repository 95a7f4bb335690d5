import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import wsx_web

@Suite("Profile and password", .timeLimit(.minutes(5)))
struct ProfileTests {
    /// The first account made (the one these tests sign up before any other), as stored.
    static func firstAccount(_ app: TestSession) async throws -> User {
        let id = Int64(try await app.count("SELECT MIN(id) FROM users"))
        return try #require(try app.database.query { tx in try tx.accounts.user(id: id) })
    }

    @Test("editing the profile saves nickname and phone, trimmed, and says so")
    func editProfile() async throws {
        try await TestApp().run { app in
            let browser = try await app.signedInBrowser(nickname: "Old")
            try await browser.get("/profile")
            let response = try await browser.post("/profile", [("nickname", "  새 이름 "), ("phone", "+82 10-1234-5678")])
            #expect(response.status == .seeOther)
            #expect(response.location == "/profile")
            let page = try await browser.get("/profile")
            #expect(page.text.contains("Profile saved."))
            #expect(page.text.contains(#"value="새 이름""#))
            #expect(page.text.contains(#"class="viewer-name">새 이름</a>"#))
            let user = try await Self.firstAccount(app)
            #expect(user.nickname == "새 이름")
            #expect(user.phone == "+82 10-1234-5678")
            // The notice shows once.
            #expect(!(try await browser.get("/profile").text.contains("Profile saved.")))
        }
    }

    @Test("a bad nickname or phone comes back with the input and a message, nothing saved")
    func invalidProfile() async throws {
        try await TestApp().run { app in
            let browser = try await app.signedInBrowser(nickname: "Keep")
            try await browser.get("/profile")
            let response = try await browser.post("/profile", [("nickname", ""), ("phone", "call me <maybe>")])
            #expect(response.status == .unprocessableContent)
            #expect(response.text.contains("Nickname must be 1 to 30 characters."))
            #expect(response.text.contains("Phone may contain digits"))
            #expect(response.text.contains(#"value="call me &lt;maybe&gt;""#))
            #expect(try await Self.firstAccount(app).nickname == "Keep")
        }
    }

    @Test("changing the password needs the current one and signs out every other session")
    func changePassword() async throws {
        try await TestApp().run { app in
            let here = try await app.signedInBrowser(email: "p@example.com", password: "first password")
            let elsewhere = app.browser()
            #expect(try await elsewhere.logIn(email: "p@example.com", password: "first password").status == .seeOther)
            #expect(try await app.count("SELECT COUNT(*) FROM sessions") == 2)

            try await here.get("/profile")
            let wrong = try await here.post("/profile/password", [("current_password", "not it at all"),
                                                                 ("password", "second password"),
                                                                 ("password_confirm", "second password")])
            #expect(wrong.status == .unprocessableContent)
            #expect(wrong.text.contains("The current password is incorrect."))
            #expect(try await app.count("SELECT COUNT(*) FROM sessions") == 2)

            let changed = try await here.post("/profile/password", [("current_password", "first password"),
                                                                   ("password", "second password"),
                                                                   ("password_confirm", "second password")])
            #expect(changed.status == .seeOther)
            #expect(try await here.get("/profile").text.contains("Password changed."))
            #expect(try await elsewhere.get("/workspaces").location?.hasPrefix("/login") == true)
            #expect(try await app.count("SELECT COUNT(*) FROM sessions") == 1)

            #expect(try await app.browser().logIn(email: "p@example.com", password: "first password").status == .unauthorized)
            #expect(try await app.browser().logIn(email: "p@example.com", password: "second password").status == .seeOther)
        }
    }

    @Test("a person's own page shows; anyone else's, or a bad id, is a 404")
    func userPages() async throws {
        try await TestApp().run { app in
            let browser = try await app.signedInBrowser(nickname: "Me")
            let myId = try #require(try await Self.firstAccount(app).id)
            let mine = try await browser.get("/users/\(myId)")
            #expect(mine.status == .ok)
            #expect(mine.text.contains(#"<h1>Me<span class="presence" data-presence="\#(myId)" hidden></span></h1>"#))
            _ = try await app.signedInBrowser(email: "other@example.com", nickname: "Other")
            #expect(try await browser.get("/users/\(myId + 1)").status == .notFound)
            #expect(try await browser.get("/users/999999").status == .notFound)
            #expect(try await browser.get("/users/abc").status == .notFound)
        }
    }

    @Test("a teammate's page: nickname, email, phone, the shared workspaces with a Message link each; gone when nothing is shared")
    func teammatePages() async throws {
        try await TestApp { $0.workspacePrice = 0 }.run { app in
            let owner = try await app.signedInBrowser(email: "owner@example.com", nickname: "민지")
            let mate = try await app.signedInBrowser(email: "mate@example.com", nickname: "Mate <b>")
            let design = try await owner.createWorkspace("디자인")
            let ops = try await owner.createWorkspace("Ops")
            let own = try await mate.createWorkspace("Mate's own")
            try await app.addMember(email: "mate@example.com", to: design, by: owner)
            try await app.addMember(email: "mate@example.com", to: ops, by: owner)
            let mateId = try await app.userId("mate@example.com"), ownerId = try await app.userId("owner@example.com")
            _ = try await app.services.accounts.updateProfile(userId: mateId, nickname: "Mate <b>", phone: "010-1234-5678", picture: nil)

            let page = try await owner.get("/users/\(mateId)")
            #expect(page.status == .ok)
            #expect(page.text.contains(#"<h1>Mate &lt;b&gt;<span class="presence" data-presence="\#(mateId)" hidden></span></h1>"#))
            #expect(page.text.contains(#"href="mailto:mate@example.com""#))
            #expect(page.text.contains("010-1234-5678"))
            for workspace in [design, ops] {
                #expect(page.text.contains(#"<a href="/w/\#(workspace)">"#))
                #expect(page.text.contains(#"href="/w/\#(workspace)/dm/\#(mateId)""#))
            }
            // Only what both share: the mate's own workspace is not listed.
            #expect(!page.text.contains("/w/\(own)"))
            #expect(!page.text.contains("Mate's own"))
            // The Message link opens their DMs in that workspace.
            #expect(try await owner.get("/w/\(design)/dm/\(mateId)").status == .ok)
            // Both ways; no phone line for someone who gave none.
            let back = try await mate.get("/users/\(ownerId)")
            #expect(back.status == .ok && back.text.contains(#"<h1>민지<span class="presence""#) && !back.text.contains("tel:"))

            // Removed from both shared workspaces: no longer visible, the same 404 as no account.
            for workspace in [design, ops] {
                _ = try await owner.confirm("/w/\(workspace)/members/\(mateId)/remove")
            }
            #expect(try await owner.get("/users/\(mateId)").status == .notFound)
            #expect(try await mate.get("/users/\(ownerId)").status == .notFound)
        }
    }

    @Test("every member name links to the profile: members table, channel members, search, message authors")
    func namesLinkToProfiles() async throws {
        try await TestApp().run { app in
            let owner = try await app.signedInBrowser(email: "o@example.com", nickname: "Owner")
            _ = try await app.signedInBrowser(email: "b@example.com", nickname: "Bora")
            let wid = try await owner.createWorkspace("Team")
            try await app.addMember(email: "b@example.com", to: wid, by: owner)
            let bora = try await app.userId("b@example.com"), ownerId = try await app.userId("o@example.com")
            let link = #"<a href="/users/\#(bora)">Bora</a>"#
            #expect(try await owner.get("/w/\(wid)/members").text.contains(link))
            let general = try #require(try await owner.get("/w/\(wid)").text.firstMatch(of: /\/w\/\d+\/c\/(\d+)/)?.1)
            #expect(try await owner.get("/w/\(wid)/c/\(general)/settings").text.contains(link))
            #expect(try await owner.get("/w/\(wid)/search?q=Bora").text.contains(#"href="/users/\#(bora)""#))
            _ = try await owner.post("/w/\(wid)/c/\(general)/messages", [("content", "hello")])
            #expect(try await owner.get("/w/\(wid)/c/\(general)").text
                .contains(#"<a class="message-author" href="/users/\#(ownerId)">Owner</a>"#))
        }
    }
}
