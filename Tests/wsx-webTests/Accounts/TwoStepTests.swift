import ArgumentParser
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import wsx_web

/// Two-step sign-in (TOTP, RFC 6238): the algorithm against the RFC's own vectors, turning it
/// on from the profile, signing in with a code (each once) or a recovery code (each once),
/// remembering a browser, turning it off, `--require-2fa`, and the operator's reset. The
/// browser suite does the same with `pyotp` as the authenticator.
@Suite("Two-step sign-in", .timeLimit(.minutes(5)))
struct TwoStepTests {
    @Test("TOTP: RFC 6238's SHA-1 test vectors, base32 both ways, and the otpauth address apps read")
    func algorithm() {
        let secret = Array("12345678901234567890".utf8)
        for (time, code) in [(59.0, "94287082"), (1_111_111_109, "07081804"), (1_111_111_111, "14050471"),
                             (1_234_567_890, "89005924"), (2_000_000_000, "69279037"), (20_000_000_000, "65353130")] {
            #expect(TOTP.code(secret: secret, step: TOTP.step(at: Date(timeIntervalSince1970: time)), digits: 8) == code, "T=\(time)")
        }
        #expect(Base32.encode(Array("foobar".utf8)) == "MZXW6YTBOI")
        #expect(Base32.decode("mzxw 6ytb oi==") == Array("foobar".utf8))
        #expect(Base32.decode("not base32!") == nil)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let step = TOTP.step(at: now)
        let current = TOTP.code(secret: secret, step: step)
        #expect(TOTP.matchingStep(current, secret: secret, at: now, after: 0) == step)
        #expect(TOTP.matchingStep(TOTP.code(secret: secret, step: step - 1), secret: secret, at: now, after: 0) == step - 1)
        #expect(TOTP.matchingStep(TOTP.code(secret: secret, step: step - 2), secret: secret, at: now, after: 0) == nil)
        #expect(TOTP.matchingStep(current, secret: secret, at: now, after: step) == nil, "a code works once")
        let uri = TOTP.uri(secret: Array("foobar".utf8), account: "민아@example.com", issuer: "chat.example.com")
        #expect(uri == "otpauth://totp/chat.example.com%3A%EB%AF%BC%EC%95%84%40example.com?secret=MZXW6YTBOI&issuer=chat.example.com&algorithm=SHA1&digits=6&period=30")
    }

    /// The current code of the account's secret.
    static func code(_ app: TestSession, _ email: String, offset: Int64 = 0) async throws -> String {
        let userId = try await app.userId(email)
        let text = try #require(try app.database.query { tx in try tx.twoStep.state(userId: userId)?.secret })
        return TOTP.code(secret: try #require(Base32.decode(text)), step: TOTP.step(at: app.clock.wallClock.now()) + offset)
    }

    /// Turns two-step sign-in on from the profile; answers the recovery codes shown.
    static func enable(_ app: TestSession, _ browser: TestBrowser, _ email: String) async throws -> [String] {
        try await browser.get("/profile/2fa")
        #expect(try await browser.post("/profile/2fa/start").location == "/profile/2fa")
        let page = try await browser.get("/profile/2fa")
        #expect(page.text.contains(#"<div class="qr-code" id="two-step-qr"><svg"#))
        let wrong = try await browser.post("/profile/2fa", [("code", "000000")])
        #expect(wrong.status == .unprocessableContent)
        let on = try await browser.post("/profile/2fa", [("code", try await code(app, email))])
        #expect(on.status == .ok && on.text.contains(#"id="recovery-codes""#))
        return on.text.matches(of: /<code>([a-z2-9]{5}-[a-z2-9]{5})<\/code>/).map { String($0.1) }
    }

    @Test("on from the profile; sign-in asks for the code; a wrong or reused code fails; a recovery code works once")
    func signIn() async throws {
        try await TestApp().run { app in
            let person = try await app.signedInBrowser(email: "two@example.com", password: "two step password")
            let codes = try await Self.enable(app, person, "two@example.com")
            #expect(codes.count == 10 && Set(codes).count == 10)
            #expect(try await person.get("/profile/2fa").text.contains(#"data-state="on""#))

            let browser = app.browser()
            let password = try await browser.logIn(email: "two@example.com", password: "two step password")
            #expect(password.location == "/login/2fa")
            #expect(browser.cookies[CookiePolicy.session] == nil, "a password alone signs nobody in")
            #expect(try await browser.get("/workspaces").location?.hasPrefix("/login") == true)
            try await browser.get("/login/2fa")
            let wrong = try await browser.post("/login/2fa", [("code", "123456")])
            #expect(wrong.status == .unauthorized && wrong.text.contains("That code is not right."))
            app.clock.advance(by: 30)
            let code = try await Self.code(app, "two@example.com")
            let ok = try await browser.post("/login/2fa", [("code", code)])
            #expect(ok.status == .seeOther && ok.location == "/workspaces" && browser.cookies[CookiePolicy.session] != nil)

            // The same code again, in another browser: refused.
            let again = app.browser()
            _ = try await again.logIn(email: "two@example.com", password: "two step password")
            try await again.get("/login/2fa")
            #expect(try await again.post("/login/2fa", [("code", code)]).status == .unauthorized)
            // A recovery code, once.
            let recovered = try await again.post("/login/2fa", [("code", codes[3].uppercased())])
            #expect(recovered.status == .seeOther)
            let third = app.browser()
            _ = try await third.logIn(email: "two@example.com", password: "two step password")
            try await third.get("/login/2fa")
            #expect(try await third.post("/login/2fa", [("code", codes[3])]).status == .unauthorized)
            #expect(try await app.count("SELECT COUNT(*) FROM recovery_codes WHERE used_at IS NULL") == 9)
            let log = try app.database.query { tx in try tx.inspection.rows("SELECT action FROM security_log ORDER BY id", []) }.map { $0[0] }
            #expect(log.contains("two_step_on") && log.contains("two_step_failed") && log.contains("recovery_code_used"))
        }
    }

    @Test("remember this browser skips the step for 30 days, and stops when two-step sign-in is turned off and on again")
    func rememberedBrowser() async throws {
        try await TestApp().run { app in
            let person = try await app.signedInBrowser(email: "r@example.com", password: "remember password")
            _ = try await Self.enable(app, person, "r@example.com")
            let laptop = app.browser()
            _ = try await laptop.logIn(email: "r@example.com", password: "remember password")
            try await laptop.get("/login/2fa")
            app.clock.advance(by: 30)
            _ = try await laptop.post("/login/2fa", [("code", try await Self.code(app, "r@example.com")), ("remember", "on")])
            #expect(laptop.cookies[TwoStepCookies.trustedName] != nil)
            try await laptop.post("/logout")
            #expect(try await laptop.logIn(email: "r@example.com", password: "remember password").location == "/workspaces")
            // Turned off (password and code) and on again: the old remembrance counts no more.
            app.clock.advance(by: 30)
            let wrongPassword = try await person.post("/profile/2fa/disable", [("current_password", "nope"),
                                                                              ("code", try await Self.code(app, "r@example.com"))])
            #expect(wrongPassword.status == .unprocessableContent)
            app.clock.advance(by: 30)
            let off = try await person.post("/profile/2fa/disable", [("current_password", "remember password"),
                                                                    ("code", try await Self.code(app, "r@example.com"))])
            #expect(off.location == "/profile/2fa")
            app.clock.advance(by: 1)
            _ = try await Self.enable(app, person, "r@example.com")
            try await laptop.post("/logout")
            #expect(try await laptop.logIn(email: "r@example.com", password: "remember password").location == "/login/2fa")
            // 31 days on, a remembered browser is asked again too.
            app.clock.advance(by: 60)
            try await laptop.get("/login/2fa")
            _ = try await laptop.post("/login/2fa", [("code", try await Self.code(app, "r@example.com")), ("remember", "on")])
            try await laptop.post("/logout")
            app.clock.advance(by: 31 * 24 * 3600)
            #expect(try await laptop.logIn(email: "r@example.com", password: "remember password").location == "/login/2fa")
        }
    }

    @Test("code attempts are throttled like passwords; the pending step expires after five minutes")
    func throttleAndExpiry() async throws {
        try await TestApp { $0.loginLimits = .init(perAccountAndAddress: 3, perAccount: 100, perAddress: 100, window: 60) }.run { app in
            let person = try await app.signedInBrowser(email: "t@example.com", password: "throttle password")
            _ = try await Self.enable(app, person, "t@example.com")
            let guesser = app.browser()
            _ = try await guesser.logIn(email: "t@example.com", password: "throttle password")
            try await guesser.get("/login/2fa")
            for guess in ["111111", "222222", "333333"] {
                #expect(try await guesser.post("/login/2fa", [("code", guess)]).status == .unauthorized)
            }
            let held = try await guesser.post("/login/2fa", [("code", try await Self.code(app, "t@example.com"))])
            #expect(held.status == .tooManyRequests && held.headers[.retryAfter] != nil)
            app.clock.advance(by: 301)
            let expired = try await guesser.post("/login/2fa", [("code", try await Self.code(app, "t@example.com"))])
            #expect(expired.location == "/login")
        }
    }

    @Test("--require-2fa admins: an administrator without it is sent to turn it on, cannot turn it off; reset-2fa from the command line")
    func required() async throws {
        try await TestApp { $0.requireTwoStep = .admins }.run(.live) { app in
            let admin = try await app.signedInBrowser(email: "admin@example.com", password: "admin password")
            let member = try await app.signedInBrowser(email: "member@example.com")
            #expect(try await admin.get("/workspaces").location == "/profile/2fa")
            #expect(try await admin.get("/profile/2fa").text.contains(#"id="two-step-required""#))
            try await admin.get("/profile/2fa")
            #expect(try await admin.post("/workspaces", [("name", "Blocked"), ("description", "")]).status == .forbidden)
            #expect(try await member.get("/workspaces").status == .ok)
            _ = try await Self.enable(app, admin, "admin@example.com")
            #expect(try await admin.get("/workspaces").status == .ok)
            app.clock.advance(by: 30)
            let off = try await admin.post("/profile/2fa/disable", [("current_password", "admin password"),
                                                                   ("code", try await Self.code(app, "admin@example.com"))])
            #expect(off.status == .forbidden)

            // A lost phone: the operator turns it off; the password alone signs in (and the
            // server asks again to turn it on).
            let work = try makeEmptyFolder()
            defer { try? FileManager.default.removeItem(at: work) }
            let reset = try await WSXBinary.runBeside(["user", "reset-2fa", "--email", "admin@example.com"] + app.storageFlags,
                                                      in: work)
            #expect(reset.status == 0, "\(reset.output)")
            let fresh = app.browser()
            #expect(try await fresh.logIn(email: "admin@example.com", password: "admin password").location == "/workspaces")
            #expect(try await fresh.get("/workspaces").location == "/profile/2fa")
            #expect(try await app.count("SELECT COUNT(*) FROM security_log WHERE action = 'two_step_reset'") == 1)
        }
        let none = EnvironmentDefaults(values: [:])
        #expect(try ServeCommand.parse([]).resolvedConfig(environment: none).requireTwoStep == .off)
        #expect(throws: ValidationError.self) { try ServeCommand.parse(["--require-2fa", "all"]).resolvedConfig(environment: none) }
    }
}
