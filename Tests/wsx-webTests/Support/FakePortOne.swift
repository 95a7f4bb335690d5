import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization
@testable import wsx_web

/// A local stand-in for PortOne's V1 REST API, exactly the two endpoints wsx uses and their
/// documented shapes: `POST /users/getToken` `{imp_key, imp_secret}` →
/// `{code: 0, response: {access_token, expired_at}}`, and `GET /payments/{imp_uid}` with
/// `Authorization: <token>` → `{code: 0, response: {imp_uid, merchant_uid, amount, currency, status}}`;
/// errors are a non-zero `code` with a `message` (and 401 for a missing or expired token).
final class FakePortOne: Sendable {
    struct State {
        var payments: [String: (merchantUid: String, amount: Int, currency: String, status: String)] = [:]
        var validTokens: Set<String> = []
        var tokensIssued = 0
        var paymentLookups = 0
        /// Answer every payments lookup with this non-zero code and message.
        var refuseWith: (Int, String)?
        /// Answer with a 503 page that is not JSON.
        var down = false
    }

    let state = Mutex(State())
    static let key = "test-imp-key"
    static let secret = "test-imp-secret"

    /// Runs the fake on a free port for `body`.
    func run<T: Sendable>(_ body: @Sendable (URL) async throws -> T) async throws -> T {
        let router = Router()
        router.post("/users/getToken") { request, context -> Response in
            let credentials = try await request.decode(as: FakePortOneCredentials.self, context: context)
            guard credentials.imp_key == Self.key, credentials.imp_secret == Self.secret else {
                return Self.json(#"{"code":-1,"message":"아임포트 API 키가 올바르지 않습니다.","response":null}"#, status: .unauthorized)
            }
            let token = self.state.withLock { state -> String in
                state.tokensIssued += 1
                let token = "token-\(state.tokensIssued)"
                state.validTokens.insert(token)
                return token
            }
            // Tokens live 30 minutes from the tests' clock (ManualClock), which wsx reads too.
            let expiry = Int(ManualClock.defaultStart.timeIntervalSince1970) + 1800
            return Self.json(#"{"code":0,"message":null,"response":{"access_token":"\#(token)","now":\#(expiry - 1800),"expired_at":\#(expiry)}}"#)
        }
        router.get("/payments/{imp_uid}") { request, context -> Response in
            let id = context.parameters.get("imp_uid") ?? ""
            let token = request.headers[.authorization] ?? ""
            return self.state.withLock { state -> Response in
                state.paymentLookups += 1
                if state.down { return Response(status: .serviceUnavailable, body: .init(byteBuffer: ByteBuffer(string: "<html>down</html>"))) }
                guard state.validTokens.contains(token) else {
                    return Self.json(#"{"code":-1,"message":"Unauthorized","response":null}"#, status: .unauthorized)
                }
                if let (code, message) = state.refuseWith {
                    return Self.json(#"{"code":\#(code),"message":"\#(message)","response":null}"#)
                }
                guard let payment = state.payments[id] else {
                    return Self.json(#"{"code":-1,"message":"존재하지 않는 결제정보입니다.","response":null}"#, status: .notFound)
                }
                return Self.json(#"{"code":0,"message":null,"response":{"imp_uid":"\#(id)","merchant_uid":"\#(payment.merchantUid)","amount":\#(payment.amount),"currency":"\#(payment.currency)","status":"\#(payment.status)","pay_method":"card","fail_reason":null}}"#)
            }
        }
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: "fake-portone")
        logger.logLevel = .error
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { continuation.yield($0.localAddress?.port ?? 0) }, logger: logger)
        let server = Task { try await app.run() }
        defer { server.cancel() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw CancellationError() }
        return try await body(URL(string: "http://127.0.0.1:\(port)")!)
    }

    static func json(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// Records that the buyer paid `merchantUid` at the PG (what the SDK would have done).
    func pay(_ impUid: String, merchantUid: String, amount: Int, currency: String = "KRW", status: String = "paid") {
        state.withLock { $0.payments[impUid] = (merchantUid, amount, currency, status) }
    }

    /// Every token issued so far stops working, as when they expire.
    func expireTokens() { state.withLock { $0.validTokens.removeAll() } }
}

struct FakePortOneCredentials: Decodable {
    let imp_key: String
    let imp_secret: String
}
