import Foundation

/// A payment as the gateway reports it when asked (never as a browser or webhook claims it).
struct GatewayPayment: Sendable, Equatable {
    /// The gateway's id (PortOne's `imp_uid`).
    let id: String
    let merchantUid: String
    let amount: Int
    let currency: String
    /// `ready`, `paid`, `failed` or `cancelled`.
    let status: String
    let failureReason: String?
}

/// How the browser goes on to pay.
enum CheckoutStart: Sendable {
    /// Send the browser to this address (the sandbox's own checkout page).
    case redirect(String)
    /// Open the gateway's JavaScript SDK with these values (PortOne).
    case clientSDK(PortOneCheckout)
}

/// What the PortOne (iamport) SDK needs in the page.
struct PortOneCheckout: Sendable {
    let merchantCode: String
    let pg: String
    let merchantUid: String
    let amount: Int
    let itemName: String
    let buyerEmail: String
}

/// A payment gateway: starts a checkout and, later, tells the truth about a payment.
protocol PaymentGateway: Sendable {
    /// `sandbox` or `portone`, stored with each payment.
    var name: String { get }
    func start(_ payment: Payment, itemName: String, buyerEmail: String) -> CheckoutStart
    /// Looks the payment up at the gateway. Throws `GatewayError` when the gateway cannot answer.
    func fetch(paymentId: String) async throws -> GatewayPayment
    /// Whether a webhook request really comes from the gateway (sandbox: HMAC signature). For
    /// PortOne V1, whose webhooks are unsigned, always true: the body is only a hint to re-fetch.
    func acceptsWebhook(body: [UInt8], signature: String?) -> Bool
}

/// The gateway could not be asked (down, slow, refusing); the payment stays pending.
enum GatewayError: Error, Equatable {
    case unavailable(String)
    /// The gateway answered `code != 0` (PortOne), with its message.
    case refused(String)
    case notFound
}
