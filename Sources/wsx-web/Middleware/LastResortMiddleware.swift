import Hummingbird
import Logging

/// The outermost safety net: an error no inner layer turned into a page (the session lookup
/// failing, say) becomes a bare page with its status and, for a 500, the request id, which is
/// also in the log line. The error's text never reaches the client.
struct LastResortMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let status: HTTPResponse.Status
            switch error {
            case let error as AppError: status = error.status
            case let error as any HTTPResponseError where error.status != .internalServerError: status = error.status
            case _ where ClientDisconnects.explains(error):
                status = .badRequest
                context.logger.notice("the client broke off its request", metadata: ["error": "\(error)"])
            default:
                status = .internalServerError
                context.logger.error("request failed", metadata: ["error": "\(String(reflecting: error))"])
            }
            let id = status == .internalServerError ? " Request ID: \(context.id)" : ""
            let html = "<!doctype html><meta charset=\"utf-8\"><title>\(status.code)</title>"
                + "<h1>\(status.code) \(status.reasonPhrase)</h1><p>\(id)</p>"
            return Pages.html(html, status: status)
        }
    }
}
