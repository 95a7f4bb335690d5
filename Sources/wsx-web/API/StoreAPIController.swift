import Foundation
import Hummingbird

/// `/v1`'s coin store (`../shared/APP-API.md` §3.5, §9): the packs for sale, and the validation
/// of a payment the app made at the gateway, credited once through `PaymentService`.
struct StoreAPIController: Sendable {
    let access: APIAccess
    let payments: PaymentService

    func addRoutes(to v1: APIRoutes) {
        v1.get("store/item/list", use: items)
        v1.post("store/pay/validation", use: validate)
    }

    /// `[{item, amount}]`: the packs as the apps list them (`10 Coin`, the price in won as text).
    /// None while the server sells no coins (`--payments off`).
    @Sendable func items(_ request: Request, context: AppRequestContext) async throws -> Response {
        _ = try await access.caller(request)
        let items = payments.isEnabled ? payments.packs.map { ["item": Self.name(of: $0), "amount": String($0.price)] } : []
        return APIResponse.json(items)
    }

    /// `{imp_uid, merchant_uid}` → PayValidation. A payment the gateway does not know is `E81`;
    /// one not paid, not at a pack's price, another account's, or already credited is `E82`.
    @Sendable func validate(_ request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try await access.caller(request)
        let fields = try await APIFields.read(request)
        let gatewayId = try fields.required("imp_uid"), merchantUid = try fields.required("merchant_uid")
        guard payments.isEnabled else { throw APIError.noSuchPayment }
        switch try await payments.verifyFromApp(gatewayPaymentId: gatewayId, merchantUid: merchantUid, userId: caller.id!) {
        case .credited(let payment):
            let buyer = try await access.present({ wanted, _ in wanted.add(caller) }, { book, _ in try book.id(.users, caller.id!) })
            return APIResponse.json(Validation(billingId: payment.gatewayPaymentId ?? gatewayId, merchantUid: payment.merchantUid,
                                               buyerId: buyer, productName: "\(payment.coins) Coin", price: payment.amount,
                                               coins: payment.coins, paidAt: payment.creditedAt ?? payment.updatedAt))
        case .failed(_, reason: "unknown_payment"):
            throw APIError.noSuchPayment
        case .pending(_, reason: "gateway_unavailable"):
            throw APIError.serverFault
        default:
            throw APIError.invalidPayment
        }
    }

    /// A pack as the apps name it.
    static func name(of pack: CoinPack) -> String { "\(pack.coins) Coin" }

    /// **PayValidation**: `sesacCoin` is the number of coins bought (the apps add it to the balance).
    private struct Validation: Encodable {
        let billingId: String, merchantUid: String, buyerId: String, productName: String, price: Int, coins: Int, paidAt: Date

        enum CodingKeys: String, CodingKey {
            case billingId = "billing_id", merchantUid = "merchant_uid", buyerId = "buyer_id", productName, price
            case sesacCoin, paidAt
        }

        func encode(to encoder: any Encoder) throws {
            var keys = encoder.container(keyedBy: CodingKeys.self)
            try keys.encode(billingId, forKey: .billingId)
            try keys.encode(merchantUid, forKey: .merchantUid)
            try keys.encode(buyerId, forKey: .buyerId)
            try keys.encode(productName, forKey: .productName)
            try keys.encode(price, forKey: .price)
            try keys.encode(coins, forKey: .sesacCoin)
            try keys.encode(APIDates.string(paidAt), forKey: .paidAt)
        }
    }
}
