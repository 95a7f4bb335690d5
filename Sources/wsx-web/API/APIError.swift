import Foundation
import Hummingbird

/// How `/v1` refuses: `400 {"errorCode":"E.."}`, or `500 {"errorCode":"E99"}` for a fault of the
/// server. No other status: one of the apps crashes on any (`../shared/APP-API.md` §1, §5).
struct APIError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The code the apps read (`E01` … `E99`).
    let code: String

    private init(_ code: String) {
        self.code = code
    }

    /// No access: the `SesacKey` is missing or wrong, or sign-up is closed.
    static let noAccess = APIError("E01")
    /// The access token is not one (garbage, revoked, or a refresh token in its place).
    static let badToken = APIError("E02")
    /// Unknown account, or a sign-in refused.
    static let unknownAccount = APIError("E03")
    /// The access token expired: refresh it and try again.
    static let accessExpired = APIError("E05")
    /// The refresh token expired or was revoked: sign in again.
    static let refreshExpired = APIError("E06")
    /// A bad request: a field missing or not valid.
    static let badRequest = APIError("E11")
    /// A duplicate: the email, the name, the member already there, or an edit that changes nothing.
    static let duplicate = APIError("E12")
    /// Not found (or not visible to the caller).
    static let notFound = APIError("E13")
    /// Only the owner may.
    static let ownerOnly = APIError("E14")
    /// The owner must hand the ownership over first.
    static let ownerMustTransfer = APIError("E15")
    /// Not enough coins.
    static let notEnoughCoins = APIError("E21")
    /// No such payment.
    static let noSuchPayment = APIError("E81")
    /// The payment is not valid (amount, state, or already used).
    static let invalidPayment = APIError("E82")
    /// No such route.
    static let unknownRoute = APIError("E97")
    /// Too many calls: wait.
    static let tooManyCalls = APIError("E98")
    /// The server failed.
    static let serverFault = APIError("E99")

    var status: HTTPResponse.Status { self == .serverFault ? .internalServerError : .badRequest }

    var description: String { code }

    /// The answer the apps decode.
    var response: Response {
        APIResponse.json(["errorCode": code], status: status)
    }
}

/// `/v1`'s answers: JSON, or an empty 200.
enum APIResponse {
    /// `value` as JSON.
    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        let data = (try? encoder.encode(value)) ?? Data(#"{"errorCode":"E99"}"#.utf8)
        return Response(status: status, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// A success with nothing to say.
    static var empty: Response {
        Response(status: .ok, headers: [.cacheControl: "no-store"])
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }()
}
