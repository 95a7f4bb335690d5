import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import wsx_web

@Suite("Coin store with the sandbox gateway", .timeLimit(.minutes(5)))
struct StoreTests {
    static func sandbox(_ configure: @escaping (inout AppConfig) -> Void = { _ in }) -> TestApp {
        TestApp { config in
            // Payments are off by default: the store's tests turn the sandbox on, as make run does.
            config.payments.mode = .sandbox
            config.payments.sandboxConfirmDelay = 0
            config.payments.sandboxSecret = "test-secret"
            configure(&config)
        }
    }

    /// Checkout of `item`; returns the sandbox checkout path.
    static func checkout(_ browser: TestBrowser, _ item: String) async throws -> String {
        try await browser.get("/store")
        return try #require(try await browser.post("/store/checkout", [("item", item)]).location)
    }

    /// Pays (or declines) on the sandbox page with the given amount; returns the return URL.
    static func decide(_ browser: TestBrowser, _ checkoutPath: String, pay: Bool, amount: String? = nil) async throws -> String {
        let page = try await browser.get(checkoutPath)
        let merchant = try #require(page.text.firstMatch(of: /name="merchant_uid" value="([^"]+)"/)?.1)
        // The page carries the server's own amount; a changed one stands for a tampered checkout.
        let listed = try #require(page.text.firstMatch(of: /name="amount" value="(\d+)"/)?.1)
        return try #require(try await browser.post("/sandbox-pay", [("merchant_uid", String(merchant)), ("amount", amount ?? String(listed)),
                                                                    ("currency", "KRW"), ("decision", pay ? "pay" : "decline")]).location)
    }

    static func balance(_ app: TestSession, _ email: String) async throws -> Int {
        try await app.count("SELECT coin_balance FROM users WHERE email = ?", [email])
    }

    /// The ledger explains every balance: its sum equals the balance.
    static func ledgerAgrees(_ app: TestSession) async throws -> Bool {
        try await app.count("SELECT COUNT(*) FROM users WHERE coin_balance <> (SELECT COALESCE(SUM(delta), 0) FROM coin_ledger WHERE user_id = users.id)") == 0
    }

    @Test("the store shows the balance, the packs in won, what coins are, and an empty history")
    func storePage() async throws {
        try await Self.sandbox().run { app in
            let page = try await app.signedInBrowser().get("/store")
            #expect(page.text.contains(#"<strong data-coin-balance>10</strong>"#))
            for price in ["₩100", "₩500", "₩1,000"] { #expect(page.text.contains(price)) }
            #expect(page.text.contains("What are coins?"))
            #expect(page.text.contains("No purchases yet."))
        }
    }

    @Test("buying through the sandbox: a pending payment with our amount, TEST checkout, verified credit, once")
    func buyOnce() async throws {
        try await Self.sandbox().run { app in
            let buyer = try await app.signedInBrowser(email: "buyer@example.com")
            let checkout = try await Self.checkout(buyer, "coins-50")
            #expect(checkout.hasPrefix("/sandbox-pay?merchant_uid=wsx_"))
            #expect(!checkout.contains("amount="))
            #expect(try await app.count("SELECT COUNT(*) FROM payments WHERE status = 'pending' AND amount = 500 AND coins = 50") == 1)
            #expect(try await buyer.get(checkout).text.contains("TEST"))

            let back = try await Self.decide(buyer, checkout, pay: true)
            #expect(back.hasPrefix("/store/complete?merchant_uid=wsx_"))
            let done = try await buyer.get(back)
            #expect(done.text.contains("50 coins were added to your balance."))
            #expect(try await Self.balance(app, "buyer@example.com") == 60)
            // A reload does not credit again.
            #expect(try await buyer.get(back).text.contains("Payment complete"))
            #expect(try await Self.balance(app, "buyer@example.com") == 60)
            #expect(try await app.count("SELECT COUNT(*) FROM coin_ledger WHERE reason = 'purchase'") == 1)
            #expect(try await Self.ledgerAgrees(app))
            let store = try await buyer.get("/store")
            #expect(store.text.contains(#"<tr data-status="paid">"#))
            #expect(try await app.count("SELECT COUNT(*) FROM events WHERE type = 'coins.changed' AND payload LIKE '%purchase%'") == 1)
            // Another person cannot look at this payment.
            #expect(try await app.signedInBrowser().get(back).status == .notFound)
        }
    }

    @Test("a declined card credits nothing and says why")
    func declined() async throws {
        try await Self.sandbox().run { app in
            let buyer = try await app.signedInBrowser(email: "d@example.com")
            let back = try await Self.decide(buyer, try await Self.checkout(buyer, "coins-10"), pay: false)
            let page = try await buyer.get(back)
            #expect(page.text.contains("The card issuer declined the payment. No coins were added."))
            #expect(try await Self.balance(app, "d@example.com") == 10)
            #expect(try await app.count("SELECT COUNT(*) FROM payments WHERE status = 'failed'") == 1)
        }
    }

    @Test("an amount changed in the browser is refused and logged: the gateway's figures must match ours")
    func tamperedAmount() async throws {
        try await Self.sandbox().run { app in
            let buyer = try await app.signedInBrowser(email: "t@example.com")
            let back = try await Self.decide(buyer, try await Self.checkout(buyer, "coins-100"), pay: true, amount: "1")
            let page = try await buyer.get(back)
            #expect(page.text.contains("does not match the order"))
            #expect(try await Self.balance(app, "t@example.com") == 10)
            #expect(app.logs.all.contains { $0.contains("gateway figures differ") })
        }
    }

    @Test("many verifications of one payment racing credit it once")
    func racingVerifications() async throws {
        try await Self.sandbox().run { app in
            let buyer = try await app.signedInBrowser(email: "r@example.com")
            let back = try await Self.decide(buyer, try await Self.checkout(buyer, "coins-10"), pay: true)
            let gatewayId = try #require(back.firstMatch(of: /imp_uid=([A-Za-z0-9_-]+)/)?.1)
            let merchant = try #require(back.firstMatch(of: /merchant_uid=([A-Za-z0-9_-]+)/)?.1)
            let outcomes = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        switch try await app.services.payments.verify(gatewayPaymentId: String(gatewayId),
                                                                      claimedMerchantUid: String(merchant)) {
                        case .credited: "credited"
                        case .alreadyCredited: "already"
                        default: "other"
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 == "credited" }.count == 1)
            #expect(outcomes.filter { $0 == "already" }.count == 19)
            #expect(try await Self.balance(app, "r@example.com") == 20)
            #expect(try await Self.ledgerAgrees(app))
        }
    }

    @Test("webhooks: a bad signature is refused; a good one credits, once, however often it arrives")
    func webhooks() async throws {
        try await Self.sandbox().run { app in
            let buyer = try await app.signedInBrowser(email: "w@example.com")
            let back = try await Self.decide(buyer, try await Self.checkout(buyer, "coins-50"), pay: true)
            let gatewayId = String(try #require(back.firstMatch(of: /imp_uid=([A-Za-z0-9_-]+)/)?.1))
            let merchant = String(try #require(back.firstMatch(of: /merchant_uid=([A-Za-z0-9_-]+)/)?.1))
            let body = #"{"imp_uid":"\#(gatewayId)","merchant_uid":"\#(merchant)","status":"paid"}"#
            let sandbox = try #require(app.services.sandbox)
            func send(_ signature: String?) async throws -> TestResponse {
                var headers: HTTPFields = [.contentType: "application/json"]
                if let signature { headers[HTTPField.Name(SandboxGateway.signatureHeader)!] = signature }
                return try await app.client.executeRequest(uri: "/store/webhook", method: .post, headers: headers,
                                                           body: ByteBuffer(string: body))
            }
            #expect(try await send(nil).status == .unauthorized)
            #expect(try await send(String(repeating: "0", count: 64)).status == .unauthorized)
            #expect(try await Self.balance(app, "w@example.com") == 10)
            let good = sandbox.sign(Array(body.utf8))
            #expect(try await send(good).text.contains("credited"))
            #expect(try await send(good).text.contains("already credited"))
            #expect(try await Self.balance(app, "w@example.com") == 60)
            // The browser returning afterwards finds it done.
            #expect(try await buyer.get(back).text.contains("Payment complete"))
            #expect(try await Self.balance(app, "w@example.com") == 60)
        }
    }

    @Test("confirmation is asynchronous: pending first, credited once the gateway confirms")
    func asynchronousConfirmation() async throws {
        try await Self.sandbox { $0.payments.sandboxConfirmDelay = 30 }.run { app in
            let buyer = try await app.signedInBrowser(email: "a@example.com")
            let back = try await Self.decide(buyer, try await Self.checkout(buyer, "coins-10"), pay: true)
            let waiting = try await buyer.get(back)
            #expect(waiting.text.contains("Waiting for the payment provider to confirm."))
            #expect(waiting.text.contains(#"data-result="pending""#))
            #expect(try await buyer.get("/store").text.contains("Check again"))
            #expect(try await Self.balance(app, "a@example.com") == 10)
            app.clock.advance(by: 31)
            #expect(try await buyer.get(back).text.contains("10 coins were added"))
            #expect(try await Self.balance(app, "a@example.com") == 20)
        }
    }

    @Test("bought coins pay for a second workspace")
    func coinsBuyWorkspaces() async throws {
        try await Self.sandbox().run { app in
            let buyer = try await app.signedInBrowser(email: "ws@example.com")
            _ = try await buyer.createWorkspace("First")
            try await buyer.get(try await Self.decide(buyer, try await Self.checkout(buyer, "coins-10"), pay: true))
            _ = try await buyer.createWorkspace("Second")
            #expect(try await app.count("SELECT COUNT(*) FROM workspaces") == 2)
            #expect(try await Self.balance(app, "ws@example.com") == 0)
            #expect(try await Self.ledgerAgrees(app))
        }
    }

    @Test("unknown packs are refused")
    func unknownPack() async throws {
        try await Self.sandbox().run { app in
            let buyer = try await app.signedInBrowser()
            try await buyer.get("/store")
            #expect(try await buyer.post("/store/checkout", [("item", "coins-1000000")]).status == .badRequest)
            #expect(try await app.count("SELECT COUNT(*) FROM payments") == 0)
        }
    }
}
