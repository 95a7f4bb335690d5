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
    /// Told of writes that failed for want of storage, so `/healthz` says so.
    let health: HealthCheck

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // Only the call and the catch live in this frame: a long-lived response (an event
        // stream) keeps its connection task's deepest async frames allocated, and rendering
        // inlined here made this frame 10 KB per open stream (heaptrack).
        do {
            return try await next(request, context)
        } catch {
            return await page(for: error, request, context)
        }
    }

    @inline(never)
    private func page(for error: any Error, _ request: Request, _ context: Context) async -> Response {
        switch error {
        case let error as AppError:
            if error.status == .unauthorized, request.method == .get || request.method == .head {
                let next = request.uri.query.map { "\(request.uri.path)?\($0)" } ?? request.uri.path
                return Pages.redirect(to: Paths.login(query: Paths.query(["next": next])))
            }
            return await pages.error(status: error.status, messageKey: error.messageKey, arguments: error.arguments,
                                     requestId: nil, request: request, visitor: context.visitor, headers: error.headers)
        case let error as any HTTPResponseError where error.status != .internalServerError:
            // Hummingbird's own refusals (unknown route, body too large) keep their status.
            return await pages.error(status: error.status, messageKey: nil, requestId: nil, request: request,
                                     visitor: context.visitor, headers: (error as? HTTPError)?.headers ?? [:])
        case is FormProblems:
            return await pages.error(status: .unprocessableContent, messageKey: nil, requestId: nil, request: request,
                                     visitor: context.visitor)
        case _ where StorageFailure.explains(error):
            context.logger.warning("a write failed: the disk is full or cannot be written", metadata: ["error": "\(error)"])
            health.noteStorageFailure(error)
            return await pages.error(status: .serviceUnavailable, messageKey: "error_storage", requestId: nil, request: request,
                                     visitor: context.visitor, headers: [.retryAfter: "30"])
        case _ where ClientDisconnects.explains(error):
            context.logger.notice("the client broke off its request", metadata: ["error": "\(error)"])
            return await pages.error(status: .badRequest, messageKey: nil, requestId: nil, request: request,
                                     visitor: context.visitor)
        default:
            context.logger.error("request failed", metadata: ["error": "\(String(reflecting: error))"])
            return await pages.error(status: .internalServerError, messageKey: nil, requestId: context.id, request: request,
                                     visitor: context.visitor)
        }
    }
}
