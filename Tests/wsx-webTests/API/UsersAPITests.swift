import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
@testable import wsx_web

/// `/v1`'s accounts as the apps use them (`../shared/APP-API.md` §1, §2, §3.1, §5).
@Suite("The apps' API: accounts and tokens", .timeLimit(.minutes(3)))
struct UsersAPITests {
    /// Whether `text` is in the apps' date format exactly: milliseconds and `Z`.
    static func isAppDate(_ text: String?) -> Bool {
        text?.wholeMatch(of: #/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/#) != nil
    }

    @Test("without --api-key /v1 is a 404; with it every request needs a SesacKey (E01), and a path it does not know is E97")
    func gate() async throws {
        try await TestApp().run { app in
            let off = try await app.api.get("/v1/users/me")
            #expect(off.status == .notFound)
        }
        try await TestApp.withAPI().run { app in
            var keyless = app.api
            keyless.key = nil
            let missing = try await keyless.post("/v1/users/login", ["email": "a@example.com", "password": "x"])
            #expect(missing.status == .badRequest && missing.code == "E01")
            keyless.key = "wrong"
            #expect(try await keyless.get("/v1/users/me").code == "E01")
            let unknown = try await app.api.get("/v1/no/such/route")
            #expect(unknown.status == .badRequest && unknown.code == "E97")
            #expect(unknown.headers[.contentType]?.hasPrefix("application/json") == true)
            let wrongMethod = try await app.api.call(.delete, "/v1/users/me")
            #expect(wrongMethod.status == .badRequest && wrongMethod.code == "E97", "a method the route does not take")
        }
    }

    @Test("join answers UserWithToken: an opaque id, the apps' dates, tokens; a taken email is E12 and a bad one E11, on join and on the email check")
    func join() async throws {
        try await TestApp.withAPI().run { app in
            let check = try await app.api.post("/v1/users/validation/email", ["email": "민지@example.com"])
            #expect(check.status == .ok)
            let (_, reply) = try await app.api.joined("민지@example.com", nickname: "민지")
            #expect(reply.status == .ok)
            let user = try #require(reply.object)
            let id = try #require(user["user_id"] as? String)
            let stored = try #require(try app.database.query { tx in try tx.accounts.user(emailKey: "민지@example.com") })
            #expect(id.count == 24 && id != String(stored.id!), "an opaque id, not the web's")
            #expect(user["email"] as? String == "민지@example.com" && user["nickname"] as? String == "민지")
            #expect(user["phone"] as? String == "010-1234-5678")
            #expect(user["profileImage"] is NSNull && user["provider"] is NSNull, "written as null, not left out")
            #expect(Self.isAppDate(user["createdAt"] as? String))
            let token = try #require(user["token"] as? [String: any Sendable])
            #expect((token["accessToken"] as? String)?.isEmpty == false && (token["refreshToken"] as? String)?.isEmpty == false)
            #expect(token["accessToken"] as? String != token["refreshToken"] as? String)

            #expect(try await app.api.post("/v1/users/validation/email", ["email": "민지@example.com"]).code == "E12")
            #expect(try await app.api.post("/v1/users/validation/email", ["email": "not an address"]).code == "E11")
            #expect(try await app.api.post("/v1/users/validation/email", [:]).code == "E11")
            #expect(try await app.api.joined("민지@EXAMPLE.COM").1.code == "E12", "any letter case")
            #expect(try await app.api.joined("bad address").1.code == "E11")
            let garbled = try await app.api.call(.post, "/v1/users/join", headers: [.contentType: "application/json"])
            #expect(garbled.code == "E11", "no body at all")
        }
    }

    @Test("join takes a form as well as JSON; while sign-up is by invitation it is E01")
    func joinForms() async throws {
        try await TestApp.withAPI().run { app in
            var headers = HTTPFields()
            headers[HTTPField.Name("SesacKey")!] = APIClient.key
            headers[.contentType] = "application/x-www-form-urlencoded"
            let response = try await app.client.executeRequest(
                uri: "/v1/users/join", method: .post, headers: headers,
                body: .init(string: "email=form%40example.com&password=Right-password-1&nickname=%ED%8F%BC&phone="))
            let text = String(buffer: response.body)
            #expect(response.status == .ok)
            #expect(text.contains(#""nickname":"폼""#))
        }
        try await TestApp.withAPI { $0.signup.mode = .invite }.run { app in
            _ = try await app.signedInBrowser(email: "first@example.com")
            let (_, closed) = try await app.api.joined("stranger@example.com")
            #expect(closed.code == "E01")
            #expect(try app.database.query { tx in try tx.accounts.user(emailKey: "stranger@example.com") } == nil)
        }
    }

    @Test("login: a wrong password is E03; the right one signs in; a deactivated account and one with two-step sign-in are E03")
    func login() async throws {
        try await TestApp.withAPI().run { app in
            _ = try await app.signedInBrowser(email: "admin@example.com")
            let (_, joined) = try await app.api.joined("login@example.com")
            #expect(joined.status == .ok)
            let wrong = try await app.api.post("/v1/users/login", ["email": "login@example.com", "password": "Wrong-password-1"])
            #expect(wrong.status == .badRequest && wrong.code == "E03")
            #expect(try await app.api.post("/v1/users/login", ["email": "nobody@example.com", "password": "x"]).code == "E03")
            let right = try await app.api.post("/v1/users/login", ["email": "LOGIN@example.com", "password": "Right-password-1",
                                                                   "deviceToken": "apns"])
            #expect(right.status == .ok && right["user_id"] == joined["user_id"])
            #expect(right.object?["token"] is [String: any Sendable])

            let userId = try #require(try app.database.query { tx in try tx.accounts.user(emailKey: "login@example.com") }?.id)
            try await app.database.write { tx in try tx.twoStep.enable(userId: userId, step: 1, at: Date()) }
            #expect(try await app.api.post("/v1/users/login", ["email": "login@example.com", "password": "Right-password-1"]).code == "E03",
                    "a password alone is not a two-step sign-in")
            try await app.services.administration.deactivate(userId: userId, by: nil)
            #expect(try await app.api.post("/v1/users/login", ["email": "login@example.com", "password": "Right-password-1"]).code == "E03")
        }
    }

    @Test("tokens: an access token works until its time (E05), the refresh token gets a new one, a refresh token is no access token (E02), and deactivation ends both",
          arguments: [false, true])
    func tokens(onPostgres: Bool) async throws {
        var server = TestApp.withAPI { $0.api.accessLifetime = 15 * 60 }
        if onPostgres { server.postgresAddress = try await PostgresTestCluster.shared().database() }
        try await server.run { app in
            _ = try await app.signedInBrowser(email: "admin@example.com")
            let (phone, joined) = try await app.api.joined("token@example.com")
            let token = try #require(joined.object?["token"] as? [String: any Sendable])
            let refresh = try #require(token["refreshToken"] as? String), access = try #require(phone.accessToken)
            #expect(try await phone.get("/v1/users/me").status == .ok)
            #expect(try await phone.get("/v1/users/me", headers: [.authorization: "Bearer " + access]).status == .ok, "Bearer too")
            var wrongSlot = phone
            wrongSlot.accessToken = refresh
            #expect(try await wrongSlot.get("/v1/users/me").code == "E02", "a refresh token is never an access token")
            wrongSlot.accessToken = "garbage"
            #expect(try await wrongSlot.get("/v1/users/me").code == "E02")
            #expect(try await app.api.get("/v1/users/me").code == "E02", "no token at all")

            app.clock.advance(by: 15 * 60 + 1)
            #expect(try await phone.get("/v1/users/me").code == "E05")
            let refreshed = try await phone.get("/v1/auth/refresh", headers: [HTTPField.Name("RefreshToken")!: refresh])
            #expect(refreshed.status == .ok)
            let newAccess: String = try #require(refreshed["accessToken"])
            var renewed = phone
            renewed.accessToken = newAccess
            #expect(renewed.accessToken != access)
            #expect(try await renewed.get("/v1/users/me").status == .ok)
            #expect(try await phone.get("/v1/users/me").code == "E02", "the old access token is gone")
            #expect(try await phone.get("/v1/auth/refresh", headers: [HTTPField.Name("RefreshToken")!: "garbage"]).code == "E06")
            #expect(try await phone.get("/v1/auth/refresh").code == "E06")

            let userId = try #require(try app.database.query { tx in try tx.accounts.user(emailKey: "token@example.com") }?.id)
            try await app.services.administration.deactivate(userId: userId, by: nil)
            #expect(try await renewed.get("/v1/users/me").code == "E02")
            #expect(try await phone.get("/v1/auth/refresh", headers: [HTTPField.Name("RefreshToken")!: refresh]).code == "E06")
            let stored = try await app.database.queryOffLoop { tx in try tx.appSessions.sessions(userId: userId) }
            #expect(stored.isEmpty, "deactivation ended the app's sign-in")
        }
    }

    @Test("the tokens are kept as hashes, with the device token; an expired refresh token is E06")
    func storedTokens() async throws {
        try await TestApp.withAPI().run { app in
            let (_, joined) = try await app.api.joined("hash@example.com")
            let token = try #require(joined.object?["token"] as? [String: any Sendable])
            let access = try #require(token["accessToken"] as? String), refresh = try #require(token["refreshToken"] as? String)
            let userId = try #require(try app.database.query { tx in try tx.accounts.user(emailKey: "hash@example.com") }?.id)
            let session = try #require(try await app.database.queryOffLoop { tx in try tx.appSessions.sessions(userId: userId) }.first)
            #expect(session.accessHash == SecretToken.hash(access) && session.refreshHash == SecretToken.hash(refresh))
            #expect(session.deviceToken == "apns-token-1")
            app.clock.advance(by: app.services.config.api.refreshLifetime + 1)
            #expect(try await app.api.get("/v1/auth/refresh", headers: [HTTPField.Name("RefreshToken")!: refresh]).code == "E06")
        }
    }

    @Test("me is MyProfile with the coins; PUT me changes the nickname (E11 for a bad one); users/{id} is a teammate's Member, a stranger's E03")
    func profiles() async throws {
        try await TestApp.withAPI().run { app in
            let (phone, joined) = try await app.api.joined("me@example.com", nickname: "나")
            let me = try await phone.get("/v1/users/me")
            #expect(me["user_id"] == joined["user_id"])
            #expect(me.object?["sesacCoin"] as? Int == app.services.config.signupCoins)
            let renamed = try await phone.call(.put, "/v1/users/me", json: ["nickname": "새 이름", "phone": ""])
            #expect(renamed.status == .ok && renamed["nickname"] == "새 이름" && renamed.object?["phone"] is NSNull)
            #expect(renamed.object?["sesacCoin"] == nil, "UserPublic has no coins")
            #expect(try await phone.call(.put, "/v1/users/me", json: ["nickname": "", "phone": ""]).code == "E11")

            let (_, strangerJoined) = try await app.api.joined("stranger@example.com", nickname: "남")
            #expect(try await phone.get("/v1/users/\(try #require(strangerJoined["user_id"]))").code == "E03", "no workspace in common")
            #expect(try await phone.get("/v1/users/nosuchid").code == "E03")
            let own = try await phone.get("/v1/users/\(try #require(joined["user_id"]))")
            #expect(own.status == .ok && Set(own.object?.keys.map { $0 } ?? []) == ["user_id", "email", "nickname", "profileImage"])

            // A team made on the web: its owner, signed in from an app, sees the member.
            _ = try await ChannelTests.team(app)
            let ownerApp = try await app.api.post("/v1/users/login", ["email": "o@example.com", "password": "correct horse"])
            var owner = app.api
            owner.accessToken = (ownerApp.object?["token"] as? [String: any Sendable])?["accessToken"] as? String
            let memberId = try app.database.query { tx in
                let id = try tx.accounts.user(emailKey: "m@example.com")!.id!
                return try tx.publicIds.publicIds(of: [id], in: .users)[id]!
            }
            let member = try await owner.get("/v1/users/\(memberId)")
            #expect(member.status == .ok && member["nickname"] == "Member" && member["email"] == "m@example.com")
            #expect(try await phone.get("/v1/users/\(memberId)").code == "E03")
        }
    }

    @Test("dates in: absent or empty is from the beginning; Z, offsets, and a zoneless time in Korean time all read; anything else is E11")
    func dates() throws {
        let moment = Date(timeIntervalSince1970: 1_707_299_713.303)
        #expect(APIDates.string(moment) == "2024-02-07T09:55:13.303Z")
        #expect(try APIDates.parameter(nil) == nil && APIDates.parameter("") == nil)
        for form in ["2024-02-07T09:55:13.303Z", "2024-02-07T18:55:13.303+0900", "2024-02-07T09:55:13.303+00:00",
                     "2024-02-07 18:55:13.303"] {
            let read = try #require(try APIDates.parameter(form))
            #expect(abs(read.timeIntervalSince(moment)) < 0.0005, "\(form)")
        }
        #expect(try APIDates.parameter("2024-02-07 18:55:13") == Date(timeIntervalSince1970: 1_707_299_713))
        #expect(throws: APIError.badRequest) { try APIDates.parameter("yesterday") }
        #expect(throws: APIError.badRequest) { try APIDates.parameter("2024-02-30T00:00:00Z") }
    }
}

/// The web side of the apps' sign-ins: a person sees them on their profile and ends them there.
@Suite("The apps' sign-ins on the profile page", .timeLimit(.minutes(3)))
struct AppSignInsPageTests {
    @Test("the profile lists each app signed in with its name; signing one out ends its tokens; another person's is a 404; without the API and without sign-ins the card is gone")
    func listAndEnd() async throws {
        try await TestApp.withAPI().run { app in
            let browser = try await app.signedInBrowser(email: "web@example.com", nickname: "웹")
            let empty = try await browser.get("/profile")
            #expect(empty.text.contains(#"id="apps-card""#) && empty.text.contains(#"id="apps-none""#))

            var headers = HTTPFields()
            headers[.userAgent] = "WorkSpaceX/1.0 (iPhone)"
            let login = try await app.api.call(.post, "/v1/users/login", json: ["email": "web@example.com", "password": "correct horse"],
                                               headers: headers)
            var phone = app.api
            phone.accessToken = (login.object?["token"] as? [String: any Sendable])?["accessToken"] as? String
            #expect(try await phone.get("/v1/users/me").status == .ok)

            let listed = try await browser.get("/profile")
            #expect(listed.text.contains(#"<span class="app-client">WorkSpaceX/1.0 (iPhone)</span>"#))
            let id = try #require(try app.database.query { tx in
                try tx.appSessions.sessions(userId: try tx.accounts.user(emailKey: "web@example.com")!.id!).first?.id
            })
            let stranger = try await app.signedInBrowser(email: "stranger@example.com")
            _ = try await stranger.get("/profile")
            #expect(try await stranger.post("/profile/apps/\(id)/end").status == .notFound, "not theirs")
            #expect(try await phone.get("/v1/users/me").status == .ok)

            let ended = try await browser.post("/profile/apps/\(id)/end")
            #expect(ended.status == .seeOther)
            #expect(try await phone.get("/v1/users/me").code == "E02", "the app's token no longer works")
            let after = try await browser.get("/profile")
            #expect(after.text.contains("The app is signed out.") && after.text.contains(#"id="apps-none""#))
        }
        try await TestApp().run { app in
            let browser = try await app.signedInBrowser(email: "web@example.com")
            #expect(!(try await browser.get("/profile").text.contains(#"id="apps-card""#)))
        }
    }
}
