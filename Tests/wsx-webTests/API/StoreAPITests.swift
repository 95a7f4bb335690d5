import Foundation
import HTTPTypes
import Testing
@testable import wsx_web

/// `/v1`'s coin store (`../shared/APP-API.md` §3.5, §9), with the sandbox gateway standing for
/// the one the app pays at.
@Suite("The apps' API: the coin store", .timeLimit(.minutes(3)))
struct StoreAPITests {
    static func sandbox() -> TestApp {
        TestApp.withAPI { config in
            config.payments.mode = .sandbox
            config.payments.sandboxConfirmDelay = 0
            config.payments.sandboxSecret = "test-secret"
        }
    }

    /// What the app's payment at the gateway leaves: its `imp_uid`.
    static func paid(_ app: TestSession, merchantUid: String, amount: Int, pay: Bool = true) async throws -> String {
        let gateway = try #require(app.services.payments.gateway as? SandboxGateway)
        return try await gateway.decide(merchantUid: merchantUid, amount: amount, currency: "KRW", pay: pay)
    }

    @Test("the packs as the apps list them; a payment at a pack's price is credited once (E82 again), an unknown one is E81, a wrong amount or a declined one E82")
    func validation() async throws {
        try await Self.sandbox().run { app in
            let (phone, joined) = try await app.api.joined("buyer@example.com")
            let items = try #require(try await phone.get("/v1/store/item/list").array)
            #expect(items.map { $0["item"] as? String } == ["10 Coin", "50 Coin", "100 Coin"])
            #expect(items.map { $0["amount"] as? String } == ["100", "500", "1000"])

            let merchant = "ios_\(APIClient.key)_1700000000"
            let imp = try await Self.paid(app, merchantUid: merchant, amount: 500)
            let valid = try await phone.post("/v1/store/pay/validation", ["imp_uid": imp, "merchant_uid": merchant])
            #expect(valid.status == .ok, "\(valid.text)")
            #expect(valid.object?["sesacCoin"] as? Int == 50 && valid.object?["price"] as? Int == 500 && valid["productName"] == "50 Coin")
            #expect(valid["merchant_uid"] == merchant && valid["buyer_id"] == joined["user_id"] && valid["billing_id"] == imp)
            #expect(UsersAPITests.isAppDate(valid["paidAt"]))
            let coins = app.services.config.signupCoins + 50
            #expect(try await phone.get("/v1/users/me").object?["sesacCoin"] as? Int == coins)
            #expect(try await phone.post("/v1/store/pay/validation", ["imp_uid": imp, "merchant_uid": merchant]).code == "E82",
                    "a payment is credited once")
            let (other, _) = try await app.api.joined("other@example.com")
            #expect(try await other.post("/v1/store/pay/validation", ["imp_uid": imp, "merchant_uid": merchant]).code == "E82")
            #expect(try await phone.get("/v1/users/me").object?["sesacCoin"] as? Int == coins)

            #expect(try await phone.post("/v1/store/pay/validation", ["imp_uid": "imps_nothing", "merchant_uid": merchant]).code == "E81")
            let odd = try await Self.paid(app, merchantUid: "ios_odd", amount: 300)
            #expect(try await phone.post("/v1/store/pay/validation", ["imp_uid": odd, "merchant_uid": "ios_odd"]).code == "E82")
            let declined = try await Self.paid(app, merchantUid: "ios_declined", amount: 100, pay: false)
            #expect(try await phone.post("/v1/store/pay/validation", ["imp_uid": declined, "merchant_uid": "ios_declined"]).code == "E82")
            let elsewhere = try await Self.paid(app, merchantUid: "ios_a", amount: 100)
            #expect(try await phone.post("/v1/store/pay/validation", ["imp_uid": elsewhere, "merchant_uid": "ios_b"]).code == "E82",
                    "the merchant id must be the gateway's")
            #expect(try await phone.post("/v1/store/pay/validation", ["imp_uid": elsewhere]).code == "E11")
            #expect(try await phone.get("/v1/users/me").object?["sesacCoin"] as? Int == coins, "no refusal credited anything")
        }
    }

    @Test("without payments the store lists nothing and validates nothing (E81)")
    func off() async throws {
        try await TestApp.withAPI().run { app in
            let (phone, _) = try await app.api.joined("buyer@example.com")
            #expect(try await phone.get("/v1/store/item/list").array?.isEmpty == true)
            #expect(try await phone.post("/v1/store/pay/validation", ["imp_uid": "x", "merchant_uid": "y"]).code == "E81")
        }
    }
}
