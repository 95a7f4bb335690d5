import Crypto
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging

/// The built-in test gateway, so `make run` can sell coins offline. It behaves like a real one:
/// its own checkout page (marked TEST) takes the amount it is given, Pay or Decline records the
/// result on its side (`sandbox_payments`), the payment reads as `ready` until confirmed a moment
/// later, and a webhook signed with HMAC-SHA256 tells wsx; wsx then asks it, as it would ask PortOne.
struct SandboxGateway: PaymentGateway {
    let database: AppDatabase
    let secret: SymmetricKey
    let clock: WallClock
    /// How long a paid sandbox payment reads as `ready` before `paid` (`--sandbox-confirm-delay`).
    let confirmDelay: TimeInterval
    /// Sends a signed webhook to this server (set once it listens); nil in in-process tests.
    let webhooks: WebhookSender?
    let logger: Logger

    static let signatureHeader = "X-Sandbox-Signature"

    var name: String { "sandbox" }

    func start(_ payment: Payment, itemName: String, buyerEmail: String) -> CheckoutStart {
        // The page reads the amount and item from the payment itself, never from the address.
        var query = URLComponents()
        query.queryItems = [URLQueryItem(name: "merchant_uid", value: payment.merchantUid)]
        return .redirect(Paths.sandboxPay(query: query.percentEncodedQuery ?? ""))
    }

    func fetch(paymentId: String) async throws -> GatewayPayment {
        let now = clock.now(), delay = confirmDelay
        let found = try await database.queryOffLoop { tx in try tx.sandboxPayments.payment(id: paymentId) }
        guard let found else { throw GatewayError.notFound }
        var status = found.status
        if status == "paid", now.timeIntervalSince(found.createdAt) < delay { status = "ready" }
        return GatewayPayment(id: found.id, merchantUid: found.merchantUid, amount: found.amount,
                              currency: found.currency, status: status,
                              failureReason: status == "failed" ? "declined by the test card" : nil)
    }

    func acceptsWebhook(body: [UInt8], signature: String?) -> Bool {
        guard let signature else { return false }
        return SecretToken.constantTimeEquals(signature, sign(body))
    }

    func sign(_ body: [UInt8]) -> String {
        HMAC<SHA256>.authenticationCode(for: body, using: secret).hexString
    }

    /// Whether the test card already decided this checkout (its page is then gone, as a real
    /// gateway's is after paying).
    func hasDecided(merchantUid: String) throws -> Bool {
        try database.query { tx in try tx.sandboxPayments.hasDecided(merchantUid: merchantUid) }
    }

    /// The test card's decision: records the payment on the sandbox's side and, after the
    /// confirmation delay, sends the signed webhook. Returns the sandbox payment id.
    func decide(merchantUid: String, amount: Int, currency: String, pay: Bool) async throws -> String {
        let id = "imps_" + SecretToken.generate().prefix(20)
        let now = clock.now()
        let decided = SandboxPayment(id: id, merchantUid: merchantUid, amount: amount, currency: currency,
                                     status: pay ? "paid" : "failed", createdAt: now)
        try await database.write { tx in try tx.sandboxPayments.add(decided) }
        if let webhooks {
            let body = Array(OutgoingEvent.json(["imp_uid": id, "merchant_uid": merchantUid, "status": pay ? "paid" : "failed"]).utf8)
            let signature = sign(body)
            let delay = confirmDelay
            Task {
                try? await Task.sleep(for: .milliseconds(Int(delay * 1000) + 50))
                await webhooks.send(body: body, headers: [Self.signatureHeader: signature])
            }
        }
        return id
    }

    /// The sandbox's secret: from `--sandbox-secret`, else made once and kept where `keeper`
    /// keeps secrets (the data folder, or the shared database).
    static func secret(configured: String?, keeper: SecretKeeper) throws -> SymmetricKey {
        if let configured { return SymmetricKey(data: Data(configured.utf8)) }
        return SymmetricKey(data: try keeper.load("sandbox-secret"))
    }
}

/// Posts webhooks to this server's own `/store/webhook` once its address is known.
actor WebhookSender {
    private var base: URL?
    private let logger: Logger

    init(logger: Logger) { self.logger = logger }

    func listening(on port: Int) { base = URL(string: "http://127.0.0.1:\(port)") }

    func send(body: [UInt8], headers: [String: String]) async {
        guard let base else { return }
        var request = URLRequest(url: base.appendingPathComponent("store/webhook"))
        request.httpMethod = "POST"
        request.httpBody = Data(body)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        do {
            _ = try await URLSession.shared.data(for: request)
        } catch {
            logger.warning("sandbox webhook failed", metadata: ["error": "\(error)"])
        }
    }
}
