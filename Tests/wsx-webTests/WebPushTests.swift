import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import Views
@testable import wsx_web

/// Web Push's pieces: the sealed body a browser opens (RFC 8291), the VAPID header a push
/// service checks (RFC 8292), who a message is pushed to, and the subscription routes. The
/// whole trip, decrypted by an independent implementation, is in Tests/browser/test_push.py.
@Suite("Web Push", .timeLimit(.minutes(5)))
struct WebPushTests {
    /// Opens a body as the browser does, with its private key and secret.
    static func open(_ body: Data, browserKey: P256.KeyAgreement.PrivateKey, auth: Data) throws -> Data {
        let salt = body.prefix(16)
        let recordSize = body.dropFirst(16).prefix(4).reduce(0) { $0 << 8 | UInt32($1) }
        #expect(recordSize == 4096)
        let idLength = Int(body[body.startIndex + 20])
        let serverPublic = body.dropFirst(21).prefix(idLength)
        let sealed = body.dropFirst(21 + idLength)
        let shared = try browserKey.sharedSecretFromKeyAgreement(with: try P256.KeyAgreement.PublicKey(x963Representation: serverPublic))
        var info = Data("WebPush: info".utf8)
        info.append(0)
        info.append(browserKey.publicKey.x963Representation)
        info.append(serverPublic)
        let ikm = shared.hkdfDerivedSymmetricKey(using: SHA256.self, salt: auth, sharedInfo: info, outputByteCount: 32)
        let key = HKDF<SHA256>.deriveKey(inputKeyMaterial: ikm, salt: salt, info: Data("Content-Encoding: aes128gcm\u{0}".utf8),
                                         outputByteCount: 16)
        let nonce = HKDF<SHA256>.deriveKey(inputKeyMaterial: ikm, salt: salt, info: Data("Content-Encoding: nonce\u{0}".utf8),
                                           outputByteCount: 12)
        let box = try AES.GCM.SealedBox(nonce: AES.GCM.Nonce(data: nonce.withUnsafeBytes { Data($0) }),
                                        ciphertext: sealed.dropLast(16), tag: sealed.suffix(16))
        var plain = try AES.GCM.open(box, using: key)
        #expect(plain.last == 2) // the last record's delimiter
        plain.removeLast()
        return plain
    }

    @Test("a sealed body opens with the browser's key and secret, and with no other; each seal is different")
    func sealing() throws {
        let browser = P256.KeyAgreement.PrivateKey()
        let auth = Data((0..<16).map { UInt8($0) })
        let payload = Data(#"{"title":"민아","body":"점심 같이 해요"}"#.utf8)
        let body = try WebPushEncryption.encrypt(payload, p256dh: browser.publicKey.x963Representation, auth: auth)
        #expect(try Self.open(body, browserKey: browser, auth: auth) == payload)
        #expect(throws: (any Error).self) { try Self.open(body, browserKey: P256.KeyAgreement.PrivateKey(), auth: auth) }
        #expect(throws: (any Error).self) { try Self.open(body, browserKey: browser, auth: Data(repeating: 9, count: 16)) }
        let again = try WebPushEncryption.encrypt(payload, p256dh: browser.publicKey.x963Representation, auth: auth)
        #expect(again != body)
        // Keys a browser could not have sent are refused before anything is sealed.
        #expect(throws: WebPushEncryption.KeyError.self) {
            try WebPushEncryption.encrypt(payload, p256dh: Data(repeating: 4, count: 65), auth: auth)
        }
        #expect(throws: WebPushEncryption.KeyError.self) {
            try WebPushEncryption.encrypt(payload, p256dh: browser.publicKey.x963Representation, auth: Data(count: 8))
        }
    }

    @Test("the VAPID header: a JWT for the push service's origin, 12 hours, the operator's address, signed by the key it names")
    func vapidHeader() throws {
        let key = VAPIDKey(privateKey: P256.Signing.PrivateKey(), subject: "mailto:ops@example.com")
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let header = try key.authorization(for: URL(string: "https://push.example.net:8443/send/abc?x=1")!, now: now)
        let match = try #require(header.firstMatch(of: /^vapid t=([^.]+)\.([^.]+)\.([^,]+), k=(.+)$/))
        #expect(String(match.4) == key.publicKeyText)
        #expect(Data(base64URLEncoded: String(match.4))?.count == 65)
        let claims = try #require(Data(base64URLEncoded: String(match.2)))
        let object = try #require(try JSONSerialization.jsonObject(with: claims) as? [String: Any])
        #expect(object["aud"] as? String == "https://push.example.net:8443")
        #expect(object["sub"] as? String == "mailto:ops@example.com")
        #expect(object["exp"] as? Int == 1_800_000_000 + 12 * 3600)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: try #require(Data(base64URLEncoded: String(match.3))))
        #expect(key.privateKey.publicKey.isValidSignature(signature, for: Data("\(match.1).\(match.2)".utf8)))
    }

    @Test("who is pushed: mentions always; DMs, groups and followed threads at the default; every message at all; nothing else when muted")
    func whoIsPushed() throws {
        func message(kind: String = "channel", mentions: [Int64] = [], thread: Int64? = nil, inTimeline: Bool? = nil,
                     followers: [Int64]? = nil) throws -> MessagePayload {
            var fields: [String: Any] = ["workspaceId": 1, "roomId": 2, "roomKind": kind, "roomName": "general", "messageId": 9,
                                         "authorId": 5, "authorNickname": "민아", "html": "", "mentions": mentions,
                                         "snippet": "안녕", "url": "/w/1/c/2"]
            if let thread { fields["threadRootId"] = thread }
            if let inTimeline { fields["inTimeline"] = inTimeline }
            if let followers { fields["followers"] = followers }
            return try JSONDecoder().decode(MessagePayload.self, from: JSONSerialization.data(withJSONObject: fields))
        }
        let plain = try message(), mention = try message(mentions: [7]), dm = try message(kind: "dm")
        #expect(!PushNotifier.notifies(plain, userId: 7, level: .mentions))
        #expect(PushNotifier.notifies(plain, userId: 7, level: .all))
        #expect(PushNotifier.notifies(mention, userId: 7, level: .mute))
        #expect(PushNotifier.notifies(dm, userId: 7, level: .mentions))
        #expect(!PushNotifier.notifies(dm, userId: 7, level: .mute))
        let reply = try message(thread: 3, inTimeline: false, followers: [7])
        #expect(PushNotifier.notifies(reply, userId: 7, level: .mentions))
        #expect(!PushNotifier.notifies(reply, userId: 8, level: .all))
        let payload = PushNotifier.payload(mention)
        #expect(payload.contains(#""title":"민아 · #general""#))
        #expect(payload.contains(#""url":"/w/1/c/2?around=9#m-9""#))
        #expect(payload.contains(#""tag":"wsx-m-9""#))
    }

    @Test("subscribing: a usable subscription is kept for the session, a bad one is a 422, no token a 403; signing out forgets it")
    func subscriptions() async throws {
        try await TestApp().run { app in
            let (a, _, _, _) = try await MessagingTests.team(app)
            let key = try await a.get("/push/key")
            #expect(key.status == .ok)
            #expect(key.headers[.contentType] == "text/plain; charset=utf-8")
            #expect(Data(base64URLEncoded: key.text)?.count == 65)
            let page = try await a.get("/profile")
            #expect(page.text.contains(#"<meta name="push-key-url" content="/push/key">"#))
            #expect(page.text.contains(#"<link rel="manifest" href="/manifest.webmanifest">"#))

            let browser = P256.KeyAgreement.PrivateKey().publicKey.x963Representation.base64URLEncoded
            let auth = Data(repeating: 1, count: 16).base64URLEncoded
            func subscription(_ endpoint: String, p256dh: String = browser, auth secret: String = auth) -> String {
                #"{"endpoint":"\#(endpoint)","expirationTime":null,"keys":{"p256dh":"\#(p256dh)","auth":"\#(secret)"}}"#
            }
            let kept = try await a.postJSON("/push/subscriptions", subscription("https://push.example.net/s/1"))
            #expect(kept.status == .created)
            let userId = try await app.userId("a@example.com")
            #expect(try await app.count("SELECT COUNT(*) FROM push_subscriptions WHERE user_id = ?", [userId]) == 1)
            for bad in [subscription("http://push.example.net/s/2"), subscription("not a url"),
                        subscription("https://push.example.net/s/3", p256dh: Data(repeating: 4, count: 65).base64URLEncoded),
                        subscription("https://push.example.net/s/4", auth: Data(repeating: 1, count: 8).base64URLEncoded),
                        #"{"endpoint": 5}"#] {
                #expect(try await a.postJSON("/push/subscriptions", bad).status == .unprocessableContent)
            }
            let noToken = try await a.postJSON("/push/subscriptions", subscription("https://push.example.net/s/5"), csrf: false)
            #expect(noToken.status == .forbidden)
            #expect(try await app.count("SELECT COUNT(*) FROM push_subscriptions") == 1)

            // Removing it; then one more, which signing out takes away.
            #expect(try await a.postJSON("/push/subscriptions/remove", #"{"endpoint":"https://push.example.net/s/1"}"#).status == .noContent)
            #expect(try await app.count("SELECT COUNT(*) FROM push_subscriptions") == 0)
            #expect(try await a.postJSON("/push/subscriptions", subscription("https://push.example.net/s/6")).status == .created)
            try await a.post("/logout", [])
            #expect(try await app.count("SELECT COUNT(*) FROM push_subscriptions") == 0)
        }
    }

    @Test("a message is queued for its room's subscribers with no tab in use, never for its author; a room where no one subscribed queues nothing")
    func queuedForOthersOnly() async throws {
        try await TestApp().run { app in
            let (a, b, wid, general) = try await MessagingTests.team(app)
            let (alice, bob) = (try await app.userId("a@example.com"), try await app.userId("b@example.com"))
            // `.invalid` never resolves (RFC 2606): the sender's tries fail and the queue keeps them.
            func subscribe(_ browser: TestBrowser, _ endpoint: String) async throws {
                let key = P256.KeyAgreement.PrivateKey().publicKey.x963Representation.base64URLEncoded
                try await browser.get("/profile")
                let body = #"{"endpoint":"\#(endpoint)","keys":{"p256dh":"\#(key)","auth":"\#(Data(repeating: 1, count: 16).base64URLEncoded)"}}"#
                #expect(try await browser.postJSON("/push/subscriptions", body).status == .created)
            }
            // Nobody has subscribed yet: a post queues nothing.
            try await MessagingTests.say(a, "/w/\(wid)/dm/\(bob)", "아무도 구독 전")
            try await subscribe(a, "https://push.invalid/alice")
            try await subscribe(b, "https://push.invalid/bob")
            let queued = { (userId: Int64) in
                try await app.count("""
                    SELECT COUNT(*) FROM push_queue JOIN push_subscriptions ON push_subscriptions.id = push_queue.subscription_id
                    WHERE push_subscriptions.user_id = ?
                    """, [userId])
            }
            try await MessagingTests.say(a, "/w/\(wid)/dm/\(bob)", "회의 자료 보냈어요")
            #expect(try await eventually { try await queued(bob) == 1 })
            // Alice's own message reached her decision in the same round as Bob's.
            #expect(try await queued(alice) == 0)
            // Bob answers: Alice is pushed, Bob is not. A plain channel message pushes no one: the
            // DM after it is queued, so the channel's turn (earlier, in order) has come and gone.
            try await MessagingTests.say(b, "/w/\(wid)/dm/\(alice)", "받았어요")
            #expect(try await eventually { try await queued(alice) == 1 })
            try await MessagingTests.say(b, "/w/\(wid)/c/\(general)", "모두 안녕하세요")
            try await MessagingTests.say(b, "/w/\(wid)/dm/\(alice)", "하나 더요")
            #expect(try await eventually { try await queued(alice) == 2 })
            #expect(try await queued(bob) == 1)
            #expect(try await app.count("SELECT COUNT(*) FROM push_queue") == 3)
        }
    }
}
