import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import wsx_web

@Suite("Login, logout and sessions", .timeLimit(.minutes(5)))
struct LoginTests {
    /// The expiry kept for the session of `browser`'s cookie.
    static func storedExpiry(_ app: TestSession, _ browser: TestBrowser) throws -> Date {
        let token = try #require(browser.cookies[CookiePolicy.session])
        let session = try app.database.query { tx in try tx.sessions.session(tokenHash: SecretToken.hash(token)) }
        return try #require(session).expiresAt
    }

    @Test("logging out ends the session in the database, and its cookie no longer signs in")
    func logoutDeletesSession() async throws {
        try await TestApp().run { app in
            let browser = try await app.signedInBrowser(email: "a@example.com")
            let oldToken = try #require(browser.cookies[CookiePolicy.session])
            try await browser.get("/workspaces")
            let response = try await browser.post("/logout")
            #expect(response.status == .seeOther)
            #expect(response.location == "/login")
            #expect(browser.setCookieHeader(named: CookiePolicy.session)?.contains("Max-Age=0") == true)
            #expect(try await app.count("SELECT COUNT(*) FROM sessions") == 0)

            let login = try await browser.get("/login")
            #expect(login.text.contains("You are logged out."))
            // The old cookie, replayed, is worth nothing.
            browser.setCookie(CookiePolicy.session, oldToken)
            let page = try await browser.get("/profile")
            #expect(page.status == .seeOther)
            #expect(page.location == "/login?next=/profile")
        }
    }

    @Test("a wrong password and an unknown email get the same message, with the email kept")
    func wrongCredentialsAreGeneric() async throws {
        try await TestApp().run { app in
            _ = try await app.signedInBrowser(email: "a@example.com", password: "right password")
            let wrongPassword = try await app.browser().logIn(email: "a@example.com", password: "wrong password")
            let unknownEmail = try await app.browser().logIn(email: "nobody@example.com", password: "right password")
            for response in [wrongPassword, unknownEmail] {
                #expect(response.status == .unauthorized)
                #expect(response.text.contains("The email or password is incorrect."))
            }
            #expect(wrongPassword.text.contains(#"value="a@example.com""#))
            #expect(unknownEmail.text.contains(#"value="nobody@example.com""#))
            #expect(try await app.count("SELECT COUNT(*) FROM sessions") == 1)
        }
    }

    @Test("the email is matched in any case and the user goes to the page they asked for")
    func loginHonoursNext() async throws {
        try await TestApp().run { app in
            _ = try await app.signedInBrowser(email: "Case@Example.com", password: "right password")
            let browser = app.browser()
            let asked = try await browser.get("/profile")
            #expect(asked.location == "/login?next=/profile")
            let form = try await browser.get("/login?next=%2Fprofile")
            #expect(form.text.contains(#"name="next" value="/profile""#))
            let response = try await browser.post("/login", [("email", "case@EXAMPLE.com"), ("password", "right password"),
                                                             ("next", "/profile")])
            #expect(response.location == "/profile")
            // Never to another site.
            let other = app.browser()
            try await other.get("/login")
            let offsite = try await other.post("/login", [("email", "case@example.com"), ("password", "right password"),
                                                          ("next", "//evil.example/")])
            #expect(offsite.location == "/workspaces")
        }
    }

    @Test("too many failures for one account from one address are slowed down, even with the right password, until the window passes")
    func failuresAreThrottledPerAccount() async throws {
        let test = TestApp { $0.loginLimits = .init(perAccountAndAddress: 3, perAccount: 100, perAddress: 100, window: 180) }
        try await test.run { app in
            _ = try await app.signedInBrowser(email: "t@example.com", password: "right password")
            let browser = app.browser()
            for _ in 0..<3 {
                #expect(try await browser.logIn(email: "t@example.com", password: "nope nope").status == .unauthorized)
            }
            let blocked = try await browser.logIn(email: "T@example.com", password: "right password")
            #expect(blocked.status == .tooManyRequests)
            #expect(blocked.headers[.retryAfter] == "180")
            #expect(blocked.text.contains("Too many failed attempts. Try again in 180 seconds."))
            #expect(browser.cookies[CookiePolicy.session] == nil)
            // Another account from the same address is not affected.
            _ = try await app.signedInBrowser(email: "u@example.com", password: "right password")
            #expect(try await app.browser().logIn(email: "u@example.com", password: "right password").status == .seeOther)

            app.clock.advance(by: 181)
            #expect(try await browser.logIn(email: "t@example.com", password: "right password").status == .seeOther)
        }
    }

    @Test("failures from one address across many accounts hit the per-address bound")
    func failuresAreThrottledPerAddress() async throws {
        let test = TestApp { $0.loginLimits = .init(perAccountAndAddress: 100, perAccount: 100, perAddress: 4, window: 60) }
        try await test.run { app in
            let browser = app.browser()
            for index in 0..<4 {
                #expect(try await browser.logIn(email: "guess\(index)@example.com", password: "whatever1").status == .unauthorized)
            }
            let blocked = try await browser.logIn(email: "fresh@example.com", password: "whatever1")
            #expect(blocked.status == .tooManyRequests)
            #expect(blocked.text.contains("Try again in 60 seconds."))
        }
    }

    @Test("sessions slide: activity pushes the 30-day expiry forward, 30 idle days end it")
    func sessionsSlide() async throws {
        try await TestApp().run { app in
            let browser = try await app.signedInBrowser()
            let firstExpiry = try Self.storedExpiry(app, browser)

            app.clock.advance(by: 2 * 60 * 60)
            let page = try await browser.get("/workspaces")
            #expect(page.status == .ok)
            #expect(browser.setCookieHeader(named: CookiePolicy.session)?.contains("Max-Age=2592000") == true)
            let slid = try Self.storedExpiry(app, browser)
            #expect(slid.timeIntervalSince(firstExpiry) == 2 * 60 * 60)

            app.clock.advance(by: 30 * 24 * 60 * 60 + 1)
            let expired = try await browser.get("/workspaces")
            #expect(expired.status == .seeOther)
            #expect(expired.location?.hasPrefix("/login") == true)
        }
    }

    @Test("cookies are Secure with --secure-cookies, or when a trusted proxy says https")
    func secureCookies() async throws {
        try await TestApp { $0.secureCookies = true }.run { app in
            let browser = app.browser()
            try await browser.get("/login")
            #expect(browser.setCookieHeader(named: CookiePolicy.anonymousCSRF)?.contains("Secure") == true)
        }
        try await TestApp { $0.trustProxy = true }.run { app in
            let proxied = app.browser()
            try await proxied.get("/login", headers: [.init("X-Forwarded-Proto")!: "https"])
            #expect(proxied.setCookieHeader(named: CookiePolicy.anonymousCSRF)?.contains("Secure") == true)
            let direct = app.browser()
            try await direct.get("/login")
            #expect(direct.setCookieHeader(named: CookiePolicy.anonymousCSRF)?.contains("Secure") == false)
        }
        try await TestApp().run { app in
            // Without --trust-proxy the header is not believed.
            let browser = app.browser()
            try await browser.get("/login", headers: [.init("X-Forwarded-Proto")!: "https"])
            #expect(browser.setCookieHeader(named: CookiePolicy.anonymousCSRF)?.contains("Secure") == false)
        }
    }

    @Test("the front door sends visitors to login and members to their workspaces")
    func frontDoor() async throws {
        try await TestApp().run { app async throws in
            #expect(try await app.browser().get("/").location == "/login")
            #expect(try await app.signedInBrowser().get("/").location == "/workspaces")
        }
    }

    @Test("the throttle keeps no e-mail text: long addresses are cut and hashed, and refused attempts store nothing")
    func throttleMemory() async throws {
        let throttle = LoginThrottle(limits: .init(perAccountAndAddress: 10, perAccount: 100, perAddress: 3, window: 60), clock: .system)
        let long = String(repeating: "가", count: 200_000) + "@example.com"   // 600 KB
        #expect(LoginThrottle.capped(long).utf8.count <= 254)
        #expect(LoginThrottle.capped("민아@example.com") == "민아@example.com")
        for n in 0..<3 {
            guard case .proceed(let ticket) = await throttle.begin(account: "\(n)\(long)", address: "198.51.100.1", trustedDevice: false)
            else { Issue.record("attempt \(n) was refused"); return }
            await throttle.end(ticket, account: "\(n)\(long)", address: "198.51.100.1", succeeded: false)
        }
        // Three failures: three account keys, three address-and-account keys, one address key.
        #expect(await throttle.ledger.keyCount == 7)
        for n in 3..<200 {
            guard case .wait = await throttle.begin(account: "\(n)\(long)", address: "198.51.100.1", trustedDevice: false) else {
                Issue.record("attempt \(n) went through the per-address limit"); return
            }
        }
        #expect(await throttle.ledger.keyCount == 7, "a refused attempt stored something")
    }
}
