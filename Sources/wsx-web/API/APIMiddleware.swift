import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// In front of every `/v1` route: the request must carry one of the server's keys as
/// `SesacKey` (else `E01`), and whatever a route throws becomes the apps' error answer
/// (`APIError`): never an HTML page, never a status the apps do not handle.
struct APIMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The keys of `--api-key`.
    let keys: [String]

    static var keyHeader: HTTPField.Name { HTTPField.Name("SesacKey")! }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let key = request.headers[Self.keyHeader], keys.contains(where: { SecretToken.constantTimeEquals($0, key) }) else {
            return APIError.noAccess.response
        }
        do {
            return try await next(request, context)
        } catch {
            return Self.answer(for: error, logger: context.logger)
        }
    }

    /// The apps' answer for `error`.
    static func answer(for error: any Error, logger: Logger) -> Response {
        switch error {
        case let error as APIError:
            return error.response
        case let problems as FormProblems:
            return (problems.messages.values.contains { $0.hasSuffix("_taken") } ? APIError.duplicate : APIError.badRequest).response
        case is DuplicateKey:
            return APIError.duplicate.response
        case is CoinError:
            return APIError.notEnoughCoins.response
        case let error as AppError:
            return code(for: error.status).response
        case let error as any HTTPResponseError where error.status != .internalServerError:
            return code(for: error.status).response
        case _ where ClientDisconnects.explains(error):
            return APIError.badRequest.response
        default:
            logger.error("API request failed", metadata: ["error": "\(String(reflecting: error))"])
            return APIError.serverFault.response
        }
    }

    /// The code nearest in meaning to an HTTP status a shared service answered.
    private static func code(for status: HTTPResponse.Status) -> APIError {
        switch status {
        case .notFound: .notFound
        case .forbidden: .ownerOnly
        case .conflict: .duplicate
        case .tooManyRequests, .serviceUnavailable: .tooManyCalls
        case .unauthorized: .badToken
        default: .badRequest
        }
    }
}
