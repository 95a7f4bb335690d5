import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import wsx_web

/// Class: money features on by default, and pages that believe what they are told. Payments are
/// off unless configured; the sandbox says so on every page and shows a payment only to its
/// buyer, with the server's own figures; a return names another payment's result only to its owner.
@Suite("Payments: off by default, the sandbox marked and scoped", .timeLimit(.minutes(5)))
struct PaymentsModeTests {
    @Test("payments off (the default): the store shows the balance and says so; checkout, return, pay and webhook are 404s")
    func offByDefault() async throws {
        try await TestApp().run { app in
            let member = try await app.signedInBrowser()
            let store = try await member.get("/store")
            #expect(store.status == .ok)
            #expect(store.text.contains(#"<strong data-coin-balance>10</strong>"#))
            #expect(store.text.contains("Buying coins is not set up on this server"))
            #expect(store.text.contains("wsx-web coins grant"))
            #expect(!store.text.contains(#"action="/store/checkout""#))
            #expect(try await member.post("/store/checkout", [("item", "coins-10")]).status == .notFound)
            #expect(try await member.get("/store/complete?merchant_uid=x&imp_uid=y").status == .notFound)
            #expect(try await member.get("/sandbox-pay?merchant_uid=x&amount=100&name=free").status == .notFound)
            #expect(try await app.browser().post("/store/webhook", [], csrf: .none).status == .notFound)
            #expect(!store.text.contains("test-payments-banner"))
            #expect(try await app.count("SELECT COUNT(*) FROM payments") == 0)
        }
    }

    @Test("with the sandbox every page carries a test-payments banner, in both languages")
    func sandboxBanner() async throws {
        try await StoreTests.sandbox().run { app in
            let english = try await app.browser().get("/login")
            #expect(english.text.contains(#"class="test-payments-banner""#))
            #expect(english.text.contains("Test payments: coins bought on this server are free"))
            let korean = try await app.browser(acceptLanguage: "ko").get("/signup")
            #expect(korean.text.contains("테스트 결제 중"))
            let member = try await app.signedInBrowser()
            for path in ["/workspaces", "/store", "/profile", "/no/such/page"] {
                #expect(try await member.get(path).text.contains(#"class="test-payments-banner""#), "\(path)")
            }
        }
    }

    @Test("the sandbox page is for the signed-in buyer of a pending payment, with the server's amount and item only")
    func sandboxPageScoped() async throws {
        try await StoreTests.sandbox().run { app in
            let buyer = try await app.signedInBrowser(email: "buyer@example.com")
            let checkout = try await StoreTests.checkout(buyer, "coins-100")
            let merchant = String(try #require(checkout.firstMatch(of: /merchant_uid=([A-Za-z0-9_-]+)/)?.1))
            // What the address says about price and item is not shown.
            let page = try await buyer.get(checkout + "&amount=1&name=%3Cb%3EFree%3C%2Fb%3E&currency=USD")
            #expect(page.status == .ok)
            #expect(page.text.contains("₩1,000"))
            #expect(page.text.contains("wsx 100 coins"))
            #expect(!page.text.contains("Free"))
            #expect(!page.text.contains("USD"))
            // Nobody else may see or decide it; an unknown one is a 404; signed out goes to login.
            let other = try await app.signedInBrowser(email: "other@example.com")
            #expect(try await other.get(checkout).status == .notFound)
            try await other.get("/store")
            #expect(try await other.post("/sandbox-pay", [("merchant_uid", merchant), ("decision", "pay")]).status == .notFound)
            #expect(try await buyer.get("/sandbox-pay?merchant_uid=wsx_madeup").status == .notFound)
            #expect(try await app.browser().get(checkout).location?.hasPrefix("/login") == true)
            // Once decided it is no longer pending: the page is gone.
            _ = try await StoreTests.decide(buyer, checkout, pay: true)
            #expect(try await buyer.get(checkout).status == .notFound)
        }
    }

    @Test("a return naming someone else's paid payment on one's own order credits nothing and does not say paid")
    func anotherUsersPayment() async throws {
        try await StoreTests.sandbox().run { app in
            let payer = try await app.signedInBrowser(email: "payer@example.com")
            let paid = try await StoreTests.decide(payer, try await StoreTests.checkout(payer, "coins-100"), pay: true)
            #expect(try await payer.get(paid).text.contains("100 coins were added"))
            let theirs = String(try #require(paid.firstMatch(of: /imp_uid=([A-Za-z0-9_-]+)/)?.1))

            let taker = try await app.signedInBrowser(email: "taker@example.com")
            let mine = try await StoreTests.checkout(taker, "coins-100")
            let myOrder = String(try #require(mine.firstMatch(of: /merchant_uid=([A-Za-z0-9_-]+)/)?.1))
            let result = try await taker.get("/store/complete?merchant_uid=\(myOrder)&imp_uid=\(theirs)")
            #expect(!result.text.contains("Payment complete"))
            #expect(!result.text.contains("coins were added"))
            #expect(result.text.contains("does not match the order"))
            #expect(try await StoreTests.balance(app, "taker@example.com") == 10)
            #expect(try await StoreTests.balance(app, "payer@example.com") == 110)
            #expect(try await app.count("SELECT COUNT(*) FROM payments WHERE merchant_uid = ? AND status = 'pending'", [myOrder]) == 1)
        }
    }
}
