import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing
@testable import wsx_web

@Suite("Coin store with PortOne V1 (a local fake of its API)", .serialized, .timeLimit(.minutes(5)))
struct PortOneTests {
    static func app(_ api: URL) -> TestApp {
        TestApp { config in
            config.payments.mode = .portone
            config.payments.portOneAPI = api.absoluteString
            config.payments.portOneKey = FakePortOne.key
            config.payments.portOneSecret = FakePortOne.secret
            config.payments.portOneMerchantCode = "imp12345678"
        }
    }

    /// Checks out `item` and returns our merchant id, from the SDK page's data.
    static func checkout(_ browser: TestBrowser, _ item: String = "coins-50") async throws -> String {
        try await browser.get("/store")
        let page = try await browser.post("/store/checkout", [("item", item)])
        #expect(page.status == .ok)
        #expect(page.text.contains(#"data-merchant-code="imp12345678""#))
        #expect(page.text.contains("https://cdn.iamport.kr/v1/iamport.js"))
        // Only this page may load iamport's script.
        #expect(page.headers[.contentSecurityPolicy]?.contains("script-src 'self' https://cdn.iamport.kr") == true)
        return String(try #require(page.text.firstMatch(of: /data-merchant-uid="([^"]+)"/)?.1))
    }

    @Test("paid at PortOne: verified through its API and credited once; the page says so")
    func paid() async throws {
        let fake = FakePortOne()
        try await fake.run { api in
            try await Self.app(api).run { app in
                let buyer = try await app.signedInBrowser(email: "p@example.com")
                let merchant = try await Self.checkout(buyer)
                fake.pay("imp_100", merchantUid: merchant, amount: 500)
                let page = try await buyer.get("/store/complete?merchant_uid=\(merchant)&imp_uid=imp_100")
                #expect(page.text.contains("50 coins were added"))
                #expect(try await buyer.get("/store/complete?merchant_uid=\(merchant)&imp_uid=imp_100").text.contains("Payment complete"))
                #expect(try await StoreTests.balance(app, "p@example.com") == 60)
                #expect(fake.state.withLock { $0.tokensIssued } == 1)   // the token was reused
            }
        }
    }

    @Test("an expired token is replaced and the lookup retried")
    func tokenExpiry() async throws {
        let fake = FakePortOne()
        try await fake.run { api in
            try await Self.app(api).run { app in
                let buyer = try await app.signedInBrowser(email: "e@example.com")
                let first = try await Self.checkout(buyer, "coins-10")
                fake.pay("imp_1", merchantUid: first, amount: 100)
                _ = try await buyer.get("/store/complete?merchant_uid=\(first)&imp_uid=imp_1")
                fake.expireTokens()
                let second = try await Self.checkout(buyer, "coins-10")
                fake.pay("imp_2", merchantUid: second, amount: 100)
                #expect(try await buyer.get("/store/complete?merchant_uid=\(second)&imp_uid=imp_2").text.contains("10 coins were added"))
                #expect(fake.state.withLock { $0.tokensIssued } == 2)
                #expect(try await StoreTests.balance(app, "e@example.com") == 30)
            }
        }
    }

    @Test("code != 0 or a gateway that is down leaves the payment pending; the webhook later credits it")
    func refusedThenWebhook() async throws {
        let fake = FakePortOne()
        try await fake.run { api in
            try await Self.app(api).run { app in
                let buyer = try await app.signedInBrowser(email: "w@example.com")
                let merchant = try await Self.checkout(buyer)
                fake.pay("imp_7", merchantUid: merchant, amount: 500)
                fake.state.withLock { $0.refuseWith = (-1, "권한이 없습니다.") }
                let refused = try await buyer.get("/store/complete?merchant_uid=\(merchant)&imp_uid=imp_7")
                #expect(refused.text.contains("cannot be reached right now"))
                fake.state.withLock { $0.refuseWith = nil; $0.down = true }
                #expect(try await buyer.get("/store/complete?merchant_uid=\(merchant)&imp_uid=imp_7").text.contains("pending"))
                #expect(try await StoreTests.balance(app, "w@example.com") == 10)
                #expect(try await app.count("SELECT COUNT(*) FROM payments WHERE status = 'pending'") == 1)

                fake.state.withLock { $0.down = false }
                // V1 webhooks are unsigned: even a body claiming "paid" only triggers a re-fetch.
                let webhook = try await app.client.executeRequest(
                    uri: "/store/webhook", method: .post, headers: [.contentType: "application/json"],
                    body: ByteBuffer(string: #"{"imp_uid":"imp_7","merchant_uid":"\#(merchant)","status":"paid"}"#))
                #expect(webhook.status == .ok)
                #expect(try await StoreTests.balance(app, "w@example.com") == 60)
            }
        }
    }

    @Test("what the gateway says wins: a wrong amount or a ready payment credits nothing, an unknown one neither")
    func gatewayDecides() async throws {
        let fake = FakePortOne()
        try await fake.run { api in
            try await Self.app(api).run { app in
                let buyer = try await app.signedInBrowser(email: "g@example.com")
                let cheap = try await Self.checkout(buyer, "coins-100")
                fake.pay("imp_cheap", merchantUid: cheap, amount: 100)   // paid ₩100 for the ₩1,000 pack
                #expect(try await buyer.get("/store/complete?merchant_uid=\(cheap)&imp_uid=imp_cheap").text.contains("does not match"))
                let waiting = try await Self.checkout(buyer, "coins-10")
                fake.pay("imp_ready", merchantUid: waiting, amount: 100, status: "ready")
                let body = #"{"imp_uid":"imp_ready","merchant_uid":"\#(waiting)","status":"paid"}"#
                _ = try await app.client.executeRequest(uri: "/store/webhook", method: .post,
                                                        headers: [.contentType: "application/json"], body: ByteBuffer(string: body))
                let unknown = try await buyer.get("/store/complete?merchant_uid=\(waiting)&imp_uid=imp_nope")
                #expect(unknown.text.contains("could not be found"))
                // Another payment's id returned for this order is not this order's payment.
                let other = try await Self.checkout(buyer, "coins-10")
                fake.pay("imp_other", merchantUid: other, amount: 100)
                #expect(try await buyer.get("/store/complete?merchant_uid=\(waiting)&imp_uid=imp_other").text.contains("does not match"))
                #expect(try await StoreTests.balance(app, "g@example.com") == 10)
                #expect(try await StoreTests.ledgerAgrees(app))
            }
        }
    }
}
