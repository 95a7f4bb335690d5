import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import LocalTestSite
import Testing
import _CryptoExtras
@testable import wsx_web

/// Kakao and Apple sign-in for the apps (`../shared/APP-API.md` §3.1): Apple's tokens checked
/// against a key set of the test's own, Kakao's against a stand-in for its user-info API that
/// answers as Kakao's documentation says.
@Suite("The apps' API: Kakao and Apple sign-in", .timeLimit(.minutes(3)))
struct SocialSignInTests {
    /// A signing key and the JWKS file that publishes it, as Apple's keys endpoint does.
    struct AppleKeys {
        let key = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
        let kid = "test-key-1"
        let file: URL

        init() throws {
            let primitives = try key.publicKey.getKeyPrimitives()
            let jwks = ["keys": [["kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256",
                                  "n": primitives.modulus.base64URLEncoded, "e": primitives.publicExponent.base64URLEncoded]]]
            file = FileManager.default.temporaryDirectory.appendingPathComponent("jwks-\(UUID().uuidString).json")
            try JSONSerialization.data(withJSONObject: jwks).write(to: file)
        }

        /// An idToken as Apple signs one, with `claims` over the usual ones.
        /// `now` is the server's clock (the tests' stands still, in 2027).
        func token(_ claims: [String: Any] = [:], signedBy signer: _RSA.Signing.PrivateKey? = nil, expiresIn: TimeInterval = 600,
                   now: Date) throws -> String {
            let header = try JSONSerialization.data(withJSONObject: ["alg": "RS256", "kid": kid])
            var body: [String: Any] = ["iss": "https://appleid.apple.com", "aud": "kr.example.workspacex", "sub": "001234.apple.user",
                                       "iat": Int(now.timeIntervalSince1970), "exp": Int(now.timeIntervalSince1970 + expiresIn),
                                       "email": "apple-user@privaterelay.appleid.com"]
            for (name, value) in claims { body[name] = value }
            let signingInput = header.base64URLEncoded + "." + (try JSONSerialization.data(withJSONObject: body)).base64URLEncoded
            let signature = try (signer ?? key).signature(for: SHA256.hash(data: Data(signingInput.utf8)), padding: .insecurePKCS1v1_5)
            return signingInput + "." + signature.rawRepresentation.base64URLEncoded
        }
    }

    @Test("Apple: a token signed by a listed key for the app signs in, making the account once (provider apple); a forged, expired or other app's token is E03; off without configuration")
    func apple() async throws {
        let keys = try AppleKeys()
        defer { try? FileManager.default.removeItem(at: keys.file) }
        try await TestApp.withAPI { $0.api.appleClientIds = ["kr.example.workspacex"]; $0.api.appleKeys = keys.file.path }.run { app in
            let first = try await app.api.post("/v1/users/login/apple", ["idToken": try keys.token(now: app.clock.wallClock.now()), "nickname": "사과", "deviceToken": "apns"])
            #expect(first.status == .ok, "\(first.text)")
            #expect(first["provider"] == "apple" && first["nickname"] == "사과" && first["email"] == "apple-user@privaterelay.appleid.com")
            #expect((first.object?["token"] as? [String: any Sendable])?["accessToken"] is String)
            let again = try await app.api.post("/v1/users/login/apple", ["idToken": try keys.token(now: app.clock.wallClock.now())])
            #expect(again["user_id"] == first["user_id"], "the same Apple account, the same wsx account")

            let stranger = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            #expect(try await app.api.post("/v1/users/login/apple", ["idToken": try keys.token(signedBy: stranger, now: app.clock.wallClock.now())]).code == "E03")
            #expect(try await app.api.post("/v1/users/login/apple", ["idToken": try keys.token(expiresIn: -10, now: app.clock.wallClock.now())]).code == "E03")
            #expect(try await app.api.post("/v1/users/login/apple", ["idToken": try keys.token(["aud": "com.other.app"], now: app.clock.wallClock.now())]).code == "E03")
            #expect(try await app.api.post("/v1/users/login/apple", ["idToken": try keys.token(["iss": "https://evil.example"], now: app.clock.wallClock.now())]).code == "E03")
            #expect(try await app.api.post("/v1/users/login/apple", ["idToken": "not.a.token"]).code == "E03")

            _ = try await app.signedInBrowser(email: "taken@example.com")
            let clash = try keys.token(["sub": "another.apple.user", "email": "taken@example.com"], now: app.clock.wallClock.now())
            #expect(try await app.api.post("/v1/users/login/apple", ["idToken": clash]).code == "E12", "already joined by email")
        }
        try await TestApp.withAPI().run { app in
            let off = try await app.api.post("/v1/users/login/apple", ["idToken": try keys.token(now: app.clock.wallClock.now())])
            #expect(off.code == "E03", "off without --apple-client-id")
        }
    }

    @Test("Kakao: a token Kakao's user-info API knows signs in (provider kakao); one it refuses is E03; off without --kakao-api")
    func kakao() async throws {
        try await LocalTestSite.run({ router in
            // Kakao's `GET /v2/user/me`: the account for a valid access token, 401 otherwise.
            router.get("/v2/user/me") { request, _ -> Response in
                guard request.headers[.authorization] == "Bearer good-kakao-token" else {
                    return Response(status: .unauthorized, headers: [.contentType: "application/json"],
                                    body: .init(byteBuffer: ByteBuffer(string: #"{"msg":"this access token does not exist","code":-401}"#)))
                }
                let body = #"{"id":3141592653,"connected_at":"2024-06-01T00:00:00Z","kakao_account":{"profile_nickname_needs_agreement":false,"profile":{"nickname":"카카오 친구"},"has_email":true,"email":"friend@kakao.example","is_email_valid":true,"is_email_verified":true}}"#
                return Response(status: .ok, headers: [.contentType: "application/json;charset=UTF-8"], body: .init(byteBuffer: ByteBuffer(string: body)))
            }
        }) { base, _ in
            try await TestApp.withAPI { $0.api.kakaoAPI = URL(string: base) }.run { app in
                let signedIn = try await app.api.post("/v1/users/login/kakao", ["oauthToken": "good-kakao-token", "deviceToken": "apns"])
                #expect(signedIn.status == .ok, "\(signedIn.text)")
                #expect(signedIn["provider"] == "kakao" && signedIn["nickname"] == "카카오 친구" && signedIn["email"] == "friend@kakao.example")
                var phone = app.api
                phone.accessToken = (signedIn.object?["token"] as? [String: any Sendable])?["accessToken"] as? String
                #expect(try await phone.get("/v1/users/me")["provider"] == "kakao")
                #expect(try await app.api.post("/v1/users/login/kakao", ["oauthToken": "expired"]).code == "E03")
                #expect(try await app.api.post("/v1/users/login/kakao", ["oauthToken": "good-kakao-token"])["user_id"] == signedIn["user_id"])
            }
        }
        try await TestApp.withAPI().run { app in
            let off = try await app.api.post("/v1/users/login/kakao", ["oauthToken": "good-kakao-token"])
            #expect(off.code == "E03", "off without --kakao-api")
        }
    }
}
