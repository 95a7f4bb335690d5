import Foundation
import GRDB
import Testing
@testable import wsx_web

@Suite("Profile and password")
struct ProfileTests {
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
            let user = try await app.database.writer.read { db in try User.fetchOne(db)! }
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
            #expect(try await app.database.writer.read { db in try User.fetchOne(db)!.nickname } == "Keep")
        }
    }

    @Test("changing the password needs the current one and signs out every other session")
    func changePassword() async throws {
        try await TestApp().run { app in
            let here = try await app.signedInBrowser(email: "p@example.com", password: "first password")
            let elsewhere = app.browser()
            #expect(try await elsewhere.logIn(email: "p@example.com", password: "first password").status == .seeOther)
            #expect(try await app.database.writer.read { db in try Session.fetchCount(db) } == 2)

            try await here.get("/profile")
            let wrong = try await here.post("/profile/password", [("current_password", "not it at all"),
                                                                 ("password", "second password"),
                                                                 ("password_confirm", "second password")])
            #expect(wrong.status == .unprocessableContent)
            #expect(wrong.text.contains("The current password is incorrect."))
            #expect(try await app.database.writer.read { db in try Session.fetchCount(db) } == 2)

            let changed = try await here.post("/profile/password", [("current_password", "first password"),
                                                                   ("password", "second password"),
                                                                   ("password_confirm", "second password")])
            #expect(changed.status == .seeOther)
            #expect(try await here.get("/profile").text.contains("Password changed."))
            #expect(try await elsewhere.get("/workspaces").location?.hasPrefix("/login") == true)
            #expect(try await app.database.writer.read { db in try Session.fetchCount(db) } == 1)

            #expect(try await app.browser().logIn(email: "p@example.com", password: "first password").status == .unauthorized)
            #expect(try await app.browser().logIn(email: "p@example.com", password: "second password").status == .seeOther)
        }
    }

    @Test("a person's own page shows; anyone else's, or a bad id, is a 404")
    func userPages() async throws {
        try await TestApp().run { app in
            let browser = try await app.signedInBrowser(nickname: "Me")
            let myId = try await app.database.writer.read { db in try User.fetchOne(db)!.id! }
            let mine = try await browser.get("/users/\(myId)")
            #expect(mine.status == .ok)
            #expect(mine.text.contains("<h1>Me</h1>"))
            _ = try await app.signedInBrowser(email: "other@example.com", nickname: "Other")
            #expect(try await browser.get("/users/\(myId + 1)").status == .notFound)
            #expect(try await browser.get("/users/999999").status == .notFound)
            #expect(try await browser.get("/users/abc").status == .notFound)
        }
    }
}
