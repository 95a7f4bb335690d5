import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import wsx_web

/// App passwords: how an account with two-step sign-in signs in to the apps.
@Suite("The apps' API: app passwords", .timeLimit(.minutes(3)))
struct AppPasswordTests {
    @Test("a two-step account signs in to an app with an app password made on its profile (shown once), never with its password; revoking it signs that app out")
    func appPasswords() async throws {
        try await TestApp.withAPI().run { app in
            let browser = try await app.signedInBrowser(email: "careful@example.com", nickname: "신중")
            let userId = try #require(try app.database.query { tx in try tx.accounts.user(emailKey: "careful@example.com") }?.id)
            let before = try await browser.get("/profile")
            #expect(!before.text.contains(#"id="app-password-form""#), "no app passwords without two-step sign-in")
            try await app.database.write { tx in try tx.twoStep.enable(userId: userId, step: 1, at: Date()) }

            #expect(try await browser.get("/profile").text.contains(#"id="app-password-form""#))
            let made = try await browser.post("/profile/app-passwords", [("name", "내 아이폰")])
            #expect(made.status == .ok)
            let password = String(try #require(made.text.firstMatch(of: /id="new-app-password" type="text" readonly value="([a-z2-9-]+)"/)?.1))
            #expect(password.count == 19)
            #expect(!(try await browser.get("/profile").text.contains(password)), "shown once")

            let withAccountPassword = try await app.api.post("/v1/users/login", ["email": "careful@example.com", "password": "correct horse"])
            #expect(withAccountPassword.code == "E03", "the account's password alone is no two-step sign-in")
            let typed = password.uppercased().replacingOccurrences(of: "-", with: " ")
            let signedIn = try await app.api.post("/v1/users/login", ["email": "careful@example.com", "password": typed])
            #expect(signedIn.status == .ok, "spaces and letter case aside")
            var phone = app.api
            phone.accessToken = (signedIn.object?["token"] as? [String: any Sendable])?["accessToken"] as? String
            #expect(try await phone.get("/v1/users/me").status == .ok)

            let page = try await browser.get("/profile")
            let revoke = String(try #require(page.text.firstMatch(of: /action="(\/profile\/app-passwords\/\d+\/revoke)"/)?.1))
            let stranger = try await app.signedInBrowser(email: "stranger@example.com")
            _ = try await stranger.get("/profile")
            #expect(try await stranger.post(revoke).status == .notFound, "not theirs")
            #expect(try await browser.post(revoke).status == .seeOther)
            #expect(try await phone.get("/v1/users/me").code == "E02", "the app that used it is signed out")
            #expect(try await app.api.post("/v1/users/login", ["email": "careful@example.com", "password": password]).code == "E03")
        }
    }
}
