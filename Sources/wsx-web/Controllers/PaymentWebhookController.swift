import Foundation
import Hummingbird
import Logging

/// `POST /store/webhook`: the gateway says something happened to a payment. No CSRF (the
/// gateway calls it), and its body is never believed: the sandbox's signature is checked, and
/// either way the payment is fetched from the gateway before anything is credited.
struct PaymentWebhookController: Sendable {
    let payments: PaymentService

    func addRoutes(to router: Router<AppRequestContext>) {
        router.post(Paths.paymentWebhook.routerPath, use: receive)
    }

    private struct Notification: Decodable {
        let imp_uid: String
        let merchant_uid: String?
        let status: String?
    }

    @Sendable func receive(_ request: Request, context: AppRequestContext) async throws -> Response {
        var request = request
        let body = try await request.collectBody(upTo: 16 * 1024)
        let bytes = Array(body.readableBytesView)
        guard let gateway = payments.gateway,
              gateway.acceptsWebhook(body: bytes, signature: request.headers[.init(SandboxGateway.signatureHeader)!]) else {
            context.logger.warning("payment webhook with a bad signature")
            return Self.answer("bad signature", status: .unauthorized)
        }
        guard let notification = try? JSONDecoder().decode(Notification.self, from: Data(bytes)) else {
            return Self.answer("bad body", status: .badRequest)
        }
        let outcome = try await payments.verify(gatewayPaymentId: notification.imp_uid, claimedMerchantUid: notification.merchant_uid)
        let result = switch outcome {
        case .credited: "credited"
        case .alreadyCredited: "already credited"
        case .pending: "pending"
        case .failed(_, let reason): "not credited: \(reason)"
        }
        return Self.answer(result, status: .ok)
    }

    static func answer(_ result: String, status: HTTPResponse.Status) -> Response {
        Response(status: status, headers: [.contentType: "application/json"],
                 body: .init(byteBuffer: ByteBuffer(string: OutgoingEvent.json(["result": result]))))
    }
}
