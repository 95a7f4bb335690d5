import Foundation
import Logging
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// PortOne (iamport) V1, as the apps wsx replaces used it. The browser pays through iamport's
/// JavaScript SDK; the server asks the REST API for the truth:
/// `POST {api}/users/getToken {imp_key, imp_secret}` → `{code: 0, response: {access_token, expired_at}}`,
/// `GET {api}/payments/{imp_uid}` with `Authorization: <token>` → `{code: 0, response: {...}}`;
/// a non-zero `code` carries a `message`.
struct PortOneGateway: PaymentGateway {
    let apiBase: URL
    let key: String
    let secret: String
    /// The merchant code the SDK is initialised with (`IMP.init`).
    let merchantCode: String
    /// The PG the SDK opens (`html5_inicis`, `kcp`, …).
    let pg: String
    let tokens: PortOneTokens
    let session: URLSession
    let clock: WallClock
    let logger: Logger

    var name: String { "portone" }

    func start(_ payment: Payment, itemName: String, buyerEmail: String) -> CheckoutStart {
        .clientSDK(PortOneCheckout(merchantCode: merchantCode, pg: pg, merchantUid: payment.merchantUid,
                                   amount: payment.amount, itemName: itemName, buyerEmail: buyerEmail))
    }

    /// Webhooks of V1 are not signed: never trusted, only a reason to ask the API again.
    func acceptsWebhook(body: [UInt8], signature: String?) -> Bool { true }

    func fetch(paymentId: String) async throws -> GatewayPayment {
        guard !paymentId.isEmpty, paymentId.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) else {
            throw GatewayError.notFound
        }
        do {
            return try await fetchOnce(paymentId, token: try await token(refresh: false))
        } catch PortOneFailure.unauthorized {
            // The token expired between our check and the request: one fresh try.
            return try await fetchOnce(paymentId, token: try await token(refresh: true))
        }
    }

    private enum PortOneFailure: Error {
        case unauthorized
    }

    private struct Envelope<Body: Decodable>: Decodable {
        let code: Int
        let message: String?
        let response: Body?
    }

    private struct TokenBody: Decodable {
        let access_token: String
        let expired_at: Double
    }

    private struct PaymentBody: Decodable {
        let imp_uid: String
        let merchant_uid: String
        let amount: Double
        let currency: String?
        let status: String
        let fail_reason: String?
    }

    private func token(refresh: Bool) async throws -> String {
        if !refresh, let cached = await tokens.valid(at: clock.now()) { return cached }
        var request = URLRequest(url: apiBase.appendingPathComponent("users/getToken"), timeoutInterval: 10)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(OutgoingEvent.json(["imp_key": key, "imp_secret": secret]).utf8)
        let envelope: Envelope<TokenBody> = try await send(request)
        guard envelope.code == 0, let body = envelope.response else {
            throw GatewayError.refused(envelope.message ?? "getToken code \(envelope.code)")
        }
        await tokens.store(body.access_token, expiresAt: Date(timeIntervalSince1970: body.expired_at))
        return body.access_token
    }

    private func fetchOnce(_ paymentId: String, token: String) async throws -> GatewayPayment {
        var request = URLRequest(url: apiBase.appendingPathComponent("payments/\(paymentId)"), timeoutInterval: 10)
        request.setValue(token, forHTTPHeaderField: "Authorization")
        let envelope: Envelope<PaymentBody> = try await send(request)
        guard envelope.code == 0, let body = envelope.response else {
            if envelope.code == -1, envelope.message?.contains("존재하지 않는") == true { throw GatewayError.notFound }
            throw GatewayError.refused(envelope.message ?? "payments code \(envelope.code)")
        }
        return GatewayPayment(id: body.imp_uid, merchantUid: body.merchant_uid, amount: Int(body.amount.rounded()),
                              currency: body.currency ?? "KRW", status: body.status, failureReason: body.fail_reason)
    }

    private func send<Body: Decodable>(_ request: URLRequest) async throws -> Envelope<Body> {
        let data: Data, response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw GatewayError.unavailable(error.localizedDescription)
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        if status == 401 { throw PortOneFailure.unauthorized }
        do {
            return try JSONDecoder().decode(Envelope<Body>.self, from: data)
        } catch {
            throw GatewayError.unavailable("HTTP \(status), unreadable answer")
        }
    }
}

/// PortOne's access token, kept until shortly before it expires.
actor PortOneTokens {
    private var token: String?
    private var expiresAt = Date.distantPast

    func valid(at now: Date) -> String? {
        guard let token, expiresAt.timeIntervalSince(now) > 30 else { return nil }
        return token
    }

    func store(_ token: String, expiresAt: Date) {
        self.token = token
        self.expiresAt = expiresAt
    }
}
