import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import wsx_web

@Suite("Operator password reset links", .timeLimit(.minutes(5)))
struct PasswordResetTests {
    @Test("a reset link sets a new password once, signs the account out everywhere, and then stops working")
    func resetLinkWorksOnce() async throws {
        try await TestApp().run { app in
            let signedIn = try await app.signedInBrowser(email: "r@example.com", password: "forgotten one")
            let token = try await app.services.accounts.createPasswordReset(email: "R@example.com")
            // The one link is kept as the hash of its token.
            #expect(try await app.count("SELECT COUNT(*) FROM password_resets") == 1)
            #expect(try app.database.query { tx in try tx.passwordResets.reset(tokenHash: SecretToken.hash(token))?.tokenHash }
                    == SecretToken.hash(token))

            let browser = app.browser()
            let form = try await browser.get("/reset/\(token)")
            #expect(form.status == .ok)
            #expect(form.text.contains("r@example.com"))
            let mismatch = try await browser.post("/reset/\(token)", [("password", "brand new one"), ("password_confirm", "other")])
            #expect(mismatch.status == .unprocessableContent)
            #expect(mismatch.text.contains("The passwords do not match."))

            let done = try await browser.post("/reset/\(token)", [("password", "brand new one"), ("password_confirm", "brand new one")])
            #expect(done.status == .seeOther)
            #expect(try await browser.get("/login").text.contains("Your password was reset."))
            #expect(try await signedIn.get("/workspaces").location?.hasPrefix("/login") == true)
            #expect(try await app.browser().logIn(email: "r@example.com", password: "brand new one").status == .seeOther)

            let again = try await browser.get("/reset/\(token)")
            #expect(again.status == .notFound)
            #expect(again.text.contains("expired or was already used"))
            let reuse = try await browser.post("/reset/\(token)", [("password", "third password"), ("password_confirm", "third password")])
            #expect(reuse.status == .notFound)
            #expect(try await app.browser().logIn(email: "r@example.com", password: "third password").status == .unauthorized)
        }
    }

    @Test("changing the password voids a reset link handed out before")
    func passwordChangeVoidsResetLinks() async throws {
        try await TestApp().run { app in
            let person = try await app.signedInBrowser(email: "l1@example.com", password: "first password")
            let token = try await app.services.accounts.createPasswordReset(email: "l1@example.com")
            #expect(try await app.browser().get("/reset/\(token)").status == .ok)
            try await person.get("/profile")
            let changed = try await person.post("/profile/password", [("current_password", "first password"),
                                                                      ("password", "second password"), ("password_confirm", "second password")])
            #expect(changed.status == .seeOther)
            let stale = app.browser()
            #expect(try await stale.get("/reset/\(token)").status == .notFound)
            let used = try await stale.post("/reset/\(token)", [("password", "attacker's choice"), ("password_confirm", "attacker's choice")])
            #expect(used.status == .notFound)
            #expect(try await app.browser().logIn(email: "l1@example.com", password: "second password").status == .seeOther)
        }
    }

    @Test("a reset link expires after one hour")
    func resetLinkExpires() async throws {
        try await TestApp().run { app in
            _ = try await app.signedInBrowser(email: "e@example.com", password: "old password")
            let token = try await app.services.accounts.createPasswordReset(email: "e@example.com")
            app.clock.advance(by: 59 * 60)
            #expect(try await app.browser().get("/reset/\(token)").status == .ok)
            app.clock.advance(by: 2 * 60)
            let browser = app.browser()
            #expect(try await browser.get("/reset/\(token)").status == .notFound)
            try await browser.get("/login")
            let late = try await browser.post("/reset/\(token)", [("password", "new password"), ("password_confirm", "new password")])
            #expect(late.status == .notFound)
            #expect(try await app.browser().logIn(email: "e@example.com", password: "old password").status == .seeOther)
        }
    }

    @Test("made-up tokens are a 404")
    func madeUpTokens() async throws {
        try await TestApp().run { app async throws in
            #expect(try await app.browser().get("/reset/nonsense").status == .notFound)
            #expect(try await app.browser().get("/reset/\(SecretToken.generate())").status == .notFound)
        }
    }
}
