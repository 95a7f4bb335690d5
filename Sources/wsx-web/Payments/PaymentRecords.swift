import Foundation

/// A row of `payments`: one checkout of one coin pack, kept by `PaymentStore` (its SQLite
/// record conformance is in `Storage/SQLite/SQLitePaymentStores.swift`).
struct Payment: Codable, Sendable, Equatable {
    enum Status: String, Codable, Sendable {
        case pending, paid, failed
    }

    var id: Int64?
    var merchantUid: String
    var userId: Int64
    var item: String
    var coins: Int
    var amount: Int
    var currency: String
    var gateway: String
    var gatewayPaymentId: String?
    var status: Status
    var failureReason: String?
    var creditedAt: Date?
    var createdAt: Date
    var updatedAt: Date

    enum CodingKeys: String, CodingKey {
        case id, merchantUid = "merchant_uid", userId = "user_id", item, coins, amount, currency, gateway
        case gatewayPaymentId = "gateway_payment_id", status, failureReason = "failure_reason", creditedAt = "credited_at"
        case createdAt = "created_at", updatedAt = "updated_at"
    }
}

/// A coin pack for sale.
struct CoinPack: Sendable, Equatable {
    /// The `item` field of the checkout form, e.g. `coins-50`.
    let item: String
    let coins: Int
    /// Price in the smallest unit of `currency` (won have no subunit).
    let price: Int

    /// Parses `10:100,50:500,100:1000` (coins:price, comma separated).
    static func parse(_ text: String) -> [CoinPack]? {
        let packs = text.split(separator: ",").compactMap { part -> CoinPack? in
            let pieces = part.split(separator: ":").map { $0.trimmingCharacters(in: .whitespaces) }
            guard pieces.count == 2, let coins = Int(pieces[0]), let price = Int(pieces[1]), coins > 0, price > 0 else { return nil }
            return CoinPack(item: "coins-\(coins)", coins: coins, price: price)
        }
        return packs.isEmpty || packs.count != text.split(separator: ",").count ? nil : packs
    }

    static let standard = parse("10:100,50:500,100:1000")!
}
