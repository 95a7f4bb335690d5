import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import wsx_web

@Suite("Language", .timeLimit(.minutes(5)))
struct LanguageTests {
    /// The language kept on the account with `email` (nil: none chosen).
    static func storedLanguage(_ app: TestSession, _ email: String) async throws -> String? {
        let id = try await app.userId(email)
        return try app.database.query { tx in try tx.accounts.user(id: id)?.lang }
    }

    @Test("the UI follows Accept-Language, English when neither language is asked for",
          arguments: [("ko-KR,ko;q=0.9", "로그인", "ko"), ("en-US", "Log in", "en"), ("fr-FR", "Log in", "en")])
    func followsAcceptLanguage(header: String, heading: String, lang: String) async throws {
        try await TestApp().run { app in
            let page = try await app.browser(acceptLanguage: header).get("/login")
            #expect(page.text.contains("<h1>\(heading)</h1>"))
            #expect(page.text.contains(#"<html lang="\#(lang)">"#))
        }
    }

    @Test("switching language is remembered by the browser and goes back to the same page")
    func switchIsRemembered() async throws {
        try await TestApp().run { app in
            let browser = app.browser(acceptLanguage: "ko-KR")
            try await browser.get("/signup")
            let response = try await browser.post("/lang", [("lang", "en"), ("next", "/signup")])
            #expect(response.status == .seeOther)
            #expect(response.location == "/signup")
            #expect(browser.setCookieHeader(named: CookiePolicy.language)?.contains("Max-Age=31536000") == true)
            #expect(try await browser.get("/signup").text.contains("<h1>Sign up</h1>"))
        }
    }

    @Test("a signed-in user's choice is stored on the account and follows them to a new browser")
    func choiceFollowsAccount() async throws {
        try await TestApp().run { app in
            let browser = try await app.signedInBrowser(email: "l@example.com", password: "password1")
            try await browser.get("/workspaces")
            try await browser.post("/lang", [("lang", "ko"), ("next", "/workspaces")])
            #expect(try await Self.storedLanguage(app, "l@example.com") == "ko")
            let elsewhere = app.browser(acceptLanguage: "en-US")
            try await elsewhere.logIn(email: "l@example.com", password: "password1")
            #expect(try await elsewhere.get("/workspaces").text.contains("첫 워크스페이스를 만드세요"))
        }
    }

    @Test("an unknown language or an off-site return address is refused or ignored")
    func badSwitches() async throws {
        try await TestApp().run { app in
            let browser = app.browser()
            try await browser.get("/login")
            #expect(try await browser.post("/lang", [("lang", "fr")]).status == .badRequest)
            #expect(try await browser.post("/lang", [("lang", "ko"), ("next", "https://evil.example/")]).location == "/")
            #expect(try await browser.post("/lang", [("lang", "ko"), ("next", "//evil.example/")]).location == "/")
        }
    }
}

@Suite("Language chosen before signing in", .timeLimit(.minutes(5)))
struct LanguageBeforeAccountTests {
    @Test("a language picked before sign-up is kept on the new account")
    func pickedBeforeSignup() async throws {
        try await TestApp().run { app in
            let browser = app.browser(acceptLanguage: "ko-KR")
            try await browser.get("/login")
            try await browser.post("/lang", [("lang", "en"), ("next", "/login")])
            try await browser.signUp(email: "early@example.com", nickname: "Early", password: "password1")
            #expect(try await LanguageTests.storedLanguage(app, "early@example.com") == "en")
            let korean = app.browser(acceptLanguage: "ko-KR")
            try await korean.logIn(email: "early@example.com", password: "password1")
            #expect(try await korean.get("/workspaces").text.contains(#"<html lang="en">"#))
        }
    }

    @Test("an account without a choice adopts the one its browser made at login; an explicit choice stays")
    func adoptedAtLogin() async throws {
        try await TestApp().run { app in
            _ = try await app.signedInBrowser(email: "later@example.com", password: "password1")
            let browser = app.browser()
            try await browser.get("/login")
            try await browser.post("/lang", [("lang", "ko")])
            try await browser.logIn(email: "later@example.com", password: "password1")
            #expect(try await LanguageTests.storedLanguage(app, "later@example.com") == "ko")
            let other = app.browser()
            try await other.get("/login")
            try await other.post("/lang", [("lang", "en")])
            try await other.logIn(email: "later@example.com", password: "password1")
            #expect(try await LanguageTests.storedLanguage(app, "later@example.com") == "ko")
        }
    }
}
