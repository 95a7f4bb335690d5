import Foundation
import Logging

/// Selling coins: checkouts, verification with the gateway, and crediting each payment once.
///
/// Nothing a browser or webhook says is believed: the amount comes from our pending payment,
/// and a payment is credited only when the gateway itself reports it paid for our merchant id,
/// amount and currency. The credit is a guarded UPDATE (`credited_at IS NULL`) in the same
/// transaction as the ledger row, so verifications racing each other credit it once.
struct PaymentService: Sendable {
    let database: AppDatabase
    /// Where coins are sold; nil when payments are off (`--payments off`).
    let gateway: (any PaymentGateway)?
    let packs: [CoinPack]
    let currency: String
    let clock: WallClock
    let logger: Logger

    /// The result of asking the gateway about a payment.
    enum Outcome: Equatable, Sendable {
        /// Paid and credited now.
        case credited(Payment)
        /// Paid and credited before (a reload, the webhook and the return racing…).
        case alreadyCredited(Payment)
        /// Not confirmed yet, or the gateway could not be asked: it stays pending, nothing lost.
        case pending(Payment?, reason: String)
        /// Declined, cancelled, or refused by our checks (mismatch): nothing credited.
        case failed(Payment?, reason: String)

        /// This outcome as `userId` may hear it: a payment that is someone else's is a mismatch.
        func belonging(to userId: Int64) -> Outcome {
            switch self {
            case .credited(let payment), .alreadyCredited(let payment):
                payment.userId == userId ? self : .failed(nil, reason: "mismatch")
            case .pending(let payment?, _), .failed(let payment?, _):
                payment.userId == userId ? self : .failed(nil, reason: "mismatch")
            default:
                self
            }
        }
    }

    /// Whether coins can be bought on this server.
    var isEnabled: Bool { gateway != nil }

    /// Starts buying `item`: a pending payment with our own unique merchant id.
    func checkout(userId: Int64, item: String) async throws -> (Payment, CoinPack) {
        guard let gateway else { throw AppError.notFound }
        guard let pack = packs.first(where: { $0.item == item }) else { throw AppError.badRequest }
        let now = clock.now()
        let payment = Payment(id: nil, merchantUid: "wsx_" + SecretToken.generate().prefix(24), userId: userId, item: pack.item,
                              coins: pack.coins, amount: pack.price, currency: currency, gateway: gateway.name,
                              gatewayPaymentId: nil, status: .pending, failureReason: nil, creditedAt: nil, createdAt: now,
                              updatedAt: now)
        let stored = try await database.write { tx in try tx.payments.insert(payment) }
        return (stored, pack)
    }

    /// Asks the gateway about its payment `gatewayPaymentId` and credits it if it is really paid.
    /// `claimedMerchantUid` (from a return URL or webhook) must agree with the gateway when given.
    func verify(gatewayPaymentId: String, claimedMerchantUid: String?) async throws -> Outcome {
        guard let gateway else { throw AppError.notFound }
        let reported: GatewayPayment
        switch try await ask(gateway, about: gatewayPaymentId) {
        case .success(let payment):
            reported = payment
        case .failure(.notFound):
            return .failed(nil, reason: "unknown_payment")
        case .failure:
            let pending = try await claimedMerchantUid.asyncMap { try await self.payment(merchantUid: $0) } ?? nil
            return .pending(pending, reason: "gateway_unavailable")
        }
        let now = clock.now(), outbox = database.outbox, logger = self.logger, gatewayName = gateway.name
        return try await database.write { tx -> Outcome in
            // First whether it is the payment it claims to be: another person's paid payment id on
            // your own order must not read as your payment being complete.
            if let claimed = claimedMerchantUid, claimed != reported.merchantUid {
                logger.warning("payment return names another merchant id", metadata: ["claimed": "\(claimed)", "gateway": "\(reported.merchantUid)"])
                return .failed(nil, reason: "mismatch")
            }
            guard var payment = try tx.payments.payment(merchantUid: reported.merchantUid) else {
                return .failed(nil, reason: "unknown_payment")
            }
            if payment.creditedAt != nil { return .alreadyCredited(payment) }
            func settle(_ status: Payment.Status, _ reason: String?) throws {
                payment.gatewayPaymentId = payment.gatewayPaymentId ?? reported.id
                payment.status = status
                payment.failureReason = reason
                payment.updatedAt = now
                try tx.payments.update(payment)
            }
            switch reported.status {
            case "paid":
                guard reported.amount == payment.amount, reported.currency.uppercased() == payment.currency.uppercased(),
                      gatewayName == payment.gateway else {
                    logger.warning("payment refused: gateway figures differ from ours", metadata: [
                        "merchant_uid": "\(payment.merchantUid)", "ours": "\(payment.amount) \(payment.currency)",
                        "gateway": "\(reported.amount) \(reported.currency)"])
                    try settle(.failed, "mismatch")
                    return .failed(payment, reason: "mismatch")
                }
                return try Self.credit(tx, payment, reported: reported, outbox: outbox, at: now)
            case "failed", "cancelled":
                try settle(.failed, reported.status == "cancelled" ? "cancelled" : "declined")
                return .failed(payment, reason: reported.status == "cancelled" ? "cancelled" : "declined")
            default:
                // Remember which gateway payment it is, so it can be checked again later.
                if payment.gatewayPaymentId == nil {
                    try settle(.pending, nil)
                }
                return .pending(payment, reason: "not_confirmed")
            }
        }
    }

    /// What the gateway reports of its payment `id`, or why it could not say (logged).
    private func ask(_ gateway: any PaymentGateway, about id: String) async throws -> Result<GatewayPayment, GatewayError> {
        do {
            return .success(try await gateway.fetch(paymentId: id))
        } catch let error as GatewayError {
            if error != .notFound {
                logger.warning("payment gateway could not be asked", metadata: ["error": "\(error)", "payment": "\(id)"])
            }
            return .failure(error)
        }
    }

    /// Credits `payment`, which the gateway reports paid, once: whoever gets here first credits;
    /// the rest find `credited_at` set.
    private static func credit(_ tx: any StoreTransaction, _ original: Payment, reported: GatewayPayment, outbox: EventOutbox,
                               at now: Date) throws -> Outcome {
        var payment = original
        guard try tx.payments.markCredited(id: payment.id!, gatewayPaymentId: reported.id, at: now) else {
            return .alreadyCredited(payment)
        }
        try CoinLedger(outbox: outbox).change(tx, userId: payment.userId, by: payment.coins, reason: "purchase",
                                              reference: payment.merchantUid, at: now)
        payment.status = .paid
        payment.gatewayPaymentId = reported.id
        payment.creditedAt = now
        return .credited(payment)
    }

    /// A payment an app made at the gateway itself (`POST /v1/store/pay/validation`: the app
    /// picks its own merchant id and pays a pack's price; no checkout of ours came first).
    /// Believed only as the gateway reports it: paid, for `merchantUid`, in our currency, at
    /// exactly the price of one of our packs, which is what is credited, to `userId`, once.
    /// A merchant id another account used, or one already credited, is refused (`mismatch`,
    /// `used`); a payment the gateway does not know is `unknown_payment`.
    func verifyFromApp(gatewayPaymentId: String, merchantUid: String, userId: Int64) async throws -> Outcome {
        guard let gateway else { throw AppError.notFound }
        let reported: GatewayPayment
        switch try await ask(gateway, about: gatewayPaymentId) {
        case .success(let payment): reported = payment
        case .failure(.notFound): return .failed(nil, reason: "unknown_payment")
        case .failure: return .pending(nil, reason: "gateway_unavailable")
        }
        guard reported.merchantUid == merchantUid else { return .failed(nil, reason: "mismatch") }
        guard reported.status == "paid" else { return .failed(nil, reason: reported.status == "failed" ? "declined" : "not_confirmed") }
        guard reported.currency.uppercased() == currency.uppercased(), let pack = packs.first(where: { $0.price == reported.amount }) else {
            return .failed(nil, reason: "mismatch")
        }
        let now = clock.now(), outbox = database.outbox, currency = self.currency, gatewayName = gateway.name
        do {
            return try await database.write { tx -> Outcome in
                let payment: Payment
                if let existing = try tx.payments.payment(merchantUid: merchantUid) {
                    guard existing.userId == userId, existing.amount == reported.amount, existing.gateway == gatewayName else {
                        return .failed(nil, reason: "mismatch")
                    }
                    guard existing.creditedAt == nil else { return .failed(existing, reason: "used") }
                    payment = existing
                } else {
                    payment = try tx.payments.insert(Payment(
                        id: nil, merchantUid: merchantUid, userId: userId, item: pack.item, coins: pack.coins, amount: pack.price,
                        currency: currency, gateway: gatewayName, gatewayPaymentId: reported.id, status: .pending, failureReason: nil,
                        creditedAt: nil, createdAt: now, updatedAt: now))
                }
                let outcome = try Self.credit(tx, payment, reported: reported, outbox: outbox, at: now)
                if case .alreadyCredited(let credited) = outcome { return .failed(credited, reason: "used") }
                return outcome
            }
        } catch is DuplicateKey {
            // Two validations of one new payment at once: the other made its row and credits it.
            return .failed(nil, reason: "used")
        }
    }

    func payment(merchantUid: String) async throws -> Payment? {
        try await database.queryOffLoop { tx in try tx.payments.payment(merchantUid: merchantUid) }
    }

    /// A person's purchases, newest first.
    func history(userId: Int64) async throws -> [Payment] {
        try await database.queryOffLoop { tx in try tx.payments.history(userId: userId, limit: 100) }
    }
}

extension Optional {
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        switch self {
        case .some(let value): try await transform(value)
        case .none: nil
        }
    }
}
