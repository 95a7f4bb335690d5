import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import wsx_web

@Suite("Sign-up", .timeLimit(.minutes(5)))
struct SignupTests {
    @Test("a new account lands on the empty 'create your first workspace' page, signed in")
    func signUpLandsOnWorkspaces() async throws {
        try await TestApp().run { app in
            let browser = app.browser()
            let response = try await browser.signUp(email: "Mina@Example.com", nickname: "민아", password: "s3cret-pass")
            #expect(response.status == .seeOther)
            #expect(response.location == "/workspaces")   // no room to open yet

            let cookie = try #require(browser.setCookieHeader(named: CookiePolicy.session))
            #expect(cookie.contains("HttpOnly"))
            #expect(cookie.contains("SameSite=Lax"))
            #expect(cookie.contains("Path=/"))
            #expect(cookie.contains("Max-Age=2592000"))
            #expect(!cookie.contains("Secure"))

            let page = try await browser.get("/workspaces")
            #expect(page.status == .ok)
            #expect(page.text.contains("Create your first workspace"))
            #expect(page.text.contains(">민아</a>"))

            let first = Int64(try await app.count("SELECT MIN(id) FROM users"))
            let (user, tokenHashes) = try app.database.query { tx in
                (try tx.accounts.user(id: first), try tx.inspection.rows("SELECT token_hash FROM sessions ORDER BY id", []).map { $0[0] })
            }
            #expect(user?.email == "Mina@Example.com")
            #expect(user?.passwordHash.hasPrefix("$2b$04$") == true)
            #expect(user?.passwordHash.contains("s3cret-pass") == false)
            // Only a hash of the cookie's token is stored.
            let token = try #require(browser.cookies[CookiePolicy.session])
            #expect(tokenHashes == [SecretToken.hash(token)])
        }
    }

    @Test("an email taken in any letter case is refused beside the field, input kept, nothing stored")
    func duplicateEmailIsRefused() async throws {
        try await TestApp().run { app in
            try await app.browser().signUp(email: "kim@example.com", nickname: "Kim", password: "password1")
            let second = app.browser()
            let response = try await second.signUp(email: "KIM@Example.COM", nickname: "Other Kim", password: "password2",
                                                   phone: "010-1234-5678")
            #expect(response.status == .unprocessableContent)
            #expect(response.text.contains("An account with this email already exists."))
            #expect(response.text.contains(#"id="email-error""#))
            #expect(response.text.contains(#"value="KIM@Example.COM""#))
            #expect(response.text.contains(#"value="Other Kim""#))
            #expect(response.text.contains(#"value="010-1234-5678""#))
            #expect(second.cookies[CookiePolicy.session] == nil)
            let count = try await app.count("SELECT COUNT(*) FROM users")
            #expect(count == 1)
        }
    }

    @Test("short passwords, mismatched confirmations, bad emails and over-long nicknames get their messages",
          arguments: [
            ("a@example.com", "Nick", "short", "short", "Password must be at least 8 characters."),
            ("a@example.com", "Nick", "long enough", "different!", "The passwords do not match."),
            ("not-an-email", "Nick", "long enough", "long enough", "Enter a valid email address."),
            ("a@example.com", String(repeating: "가", count: 31), "long enough", "long enough", "Nickname must be 1 to 30 characters."),
            ("a@example.com", "   ", "long enough", "long enough", "Nickname must be 1 to 30 characters."),
          ])
    func invalidInputIsRefused(email: String, nickname: String, password: String, confirmation: String,
                               message: String) async throws {
        try await TestApp().run { app in
            let response = try await app.browser().signUp(email: email, nickname: nickname, password: password,
                                                          confirmation: confirmation)
            #expect(response.status == .unprocessableContent)
            #expect(response.text.contains(message))
            #expect(response.text.contains(#"class="field-error""#))
            let count = try await app.count("SELECT COUNT(*) FROM users")
            #expect(count == 0)
        }
    }

    @Test("a 30-syllable Hangul nickname is accepted, trimmed and stored in NFC")
    func hangulNicknameIsNormalized() async throws {
        try await TestApp().run { app in
            let decomposed = "  \u{1112}\u{1161}\u{11AB}\u{1100}\u{1173}\u{11AF}  "   // 한글 as jamo, with spaces
            let response = try await app.browser().signUp(email: "jamo@example.com", nickname: decomposed, password: "password1")
            #expect(response.status == .seeOther)
            let thirty = String(repeating: "가", count: 30)
            #expect(try await app.browser().signUp(email: "long@example.com", nickname: thirty, password: "password1").status == .seeOther)
            let nicknames = try app.database.query { tx in
                try tx.inspection.rows("SELECT nickname FROM users ORDER BY id", [])
            }.map { $0[0] }
            #expect(nicknames == ["한글", thirty])
            #expect(nicknames[0].unicodeScalars.count == 2)
        }
    }

    @Test("a <script> nickname is shown as text")
    func scriptNicknameIsEscaped() async throws {
        try await TestApp().run { app in
            let browser = app.browser()
            try await browser.signUp(email: "x@example.com", nickname: "<script>alert(1)</script>", password: "password1")
            let page = try await browser.get("/workspaces")
            #expect(page.text.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
            #expect(!page.text.contains("<script>alert"))
        }
    }

    @Test("two sign-ups racing for one email make exactly one account")
    func racingSignUpsMakeOneAccount() async throws {
        try await TestApp().run { app in
            let outcomes = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<6 {
                    group.addTask {
                        let input = SignupInput(form: FormData(fields: [
                            ("email", "race@example.com"), ("nickname", "R\(index)"),
                            ("password", "password1"), ("password_confirm", "password1")]))
                        do { _ = try await app.services.accounts.signUp(input); return 1 } catch is FormProblems { return 0 }
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(outcomes == 1)
            #expect(try await app.count("SELECT COUNT(*) FROM users") == 1)
        }
    }
}
