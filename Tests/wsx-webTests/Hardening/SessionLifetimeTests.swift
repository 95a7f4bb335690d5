import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import wsx_web

/// Class: credentials that outlive their reason. A session ends 90 days after it began however
/// active it is, and changing the password replaces even the current browser's token.
@Suite("Session lifetimes", .timeLimit(.minutes(5)))
struct SessionLifetimeTests {
    @Test("a session used every day still ends 90 days after it began; its cookie never claims longer")
    func absoluteLifetime() async throws {
        try await TestApp().run { app in
            let browser = try await app.signedInBrowser()
            for day in 1...89 {
                app.clock.advance(by: 24 * 60 * 60)
                let page = try await browser.get("/workspaces")
                #expect(page.status == .ok, "day \(day)")
                if let header = browser.setCookieHeader(named: CookiePolicy.session),
                   let age = header.firstMatch(of: /Max-Age=(\d+)/).flatMap({ Int($0.1) }) {
                    #expect(age <= (90 - day) * 24 * 60 * 60, "day \(day): Max-Age \(age)")
                }
            }
            app.clock.advance(by: 24 * 60 * 60)
            #expect(try await browser.get("/workspaces").location?.hasPrefix("/login") == true)
            // The hourly sweep removes it.
            #expect(try await app.services.sessions.pruneExpired() == 1)
        }
    }

    @Test("changing the password gives this browser a new token and CSRF token; the old ones sign nothing in")
    func passwordChangeRotatesToken() async throws {
        try await TestApp().run { app in
            let browser = try await app.signedInBrowser(email: "rotate@example.com", password: "first password")
            try await browser.get("/profile")
            let (oldToken, oldCSRF) = (try #require(browser.cookies[CookiePolicy.session]), try #require(browser.csrfToken))
            let changed = try await browser.post("/profile/password", [("current_password", "first password"),
                                                                      ("password", "second password"),
                                                                      ("password_confirm", "second password")])
            #expect(changed.status == .seeOther)
            let newToken = try #require(browser.cookies[CookiePolicy.session])
            #expect(newToken != oldToken)
            // This browser is still signed in, on its new session, with a new CSRF token.
            let profile = try await browser.get("/profile")
            #expect(profile.status == .ok)
            #expect(browser.csrfToken != oldCSRF)
            // Someone holding the old cookie (copied before the change) is not signed in.
            let copy = app.browser()
            copy.setCookie(CookiePolicy.session, oldToken)
            #expect(try await copy.get("/workspaces").location?.hasPrefix("/login") == true)
            #expect(try await app.count("SELECT COUNT(*) FROM sessions") == 1)
            // And the old CSRF token does not pass.
            #expect(try await browser.post("/profile", [("nickname", "X"), ("phone", "")], csrf: .value(oldCSRF)).status == .forbidden)
        }
    }
}
