import Hummingbird
import Logging
import Views

/// Turns errors into pages in the visitor's language with the right status: `AppError` and
/// Hummingbird's `HTTPResponseError`s keep their status (an unknown route is a 404), `FormProblems` that a
/// controller did not handle become a 422, anything else is logged with the request id and
/// shown as a 500 page carrying that id, never the error's text.
struct ErrorPageMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let pages: Pages

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as AppError {
            if error.status == .unauthorized, request.method == .get || request.method == .head {
                let next = request.uri.query.map { "\(request.uri.path)?\($0)" } ?? request.uri.path
                return Pages.redirect(to: "/login?next=" + (next.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "/"))
            }
            return await pages.error(status: error.status, messageKey: error.messageKey, arguments: error.arguments,
                                     requestId: nil, request: request, visitor: context.visitor, headers: error.headers)
        } catch let error as any HTTPResponseError where error.status != .internalServerError {
            // Hummingbird's own refusals (unknown route, body too large) keep their status.
            return await pages.error(status: error.status, messageKey: nil, requestId: nil, request: request,
                               visitor: context.visitor, headers: (error as? HTTPError)?.headers ?? [:])
        } catch is FormProblems {
            return await pages.error(status: .unprocessableContent, messageKey: nil, requestId: nil, request: request,
                               visitor: context.visitor)
        } catch {
            context.logger.error("request failed", metadata: ["error": "\(String(reflecting: error))"])
            return await pages.error(status: .internalServerError, messageKey: nil, requestId: context.id, request: request,
                               visitor: context.visitor)
        }
    }
}
