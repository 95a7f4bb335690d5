import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// Refuses every state-changing request that does not repeat the visitor's CSRF token, in the
/// `_csrf` form field or the `X-CSRF-Token` header, with a 403 page and nothing changed.
///
/// It parses urlencoded bodies (bounded by `maximumFormBytes`) once and hands the fields to the
/// route in `visitor.form`. Paths `isExempt` accepts (the payment gateway's webhook, a digest's
/// one-click unsubscribe) are let through: they authenticate the caller another way.
struct CSRFMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    static let headerName = HTTPField.Name("X-CSRF-Token")!
    static let fieldName = "_csrf"
    /// Generous for any wsx form (a 5,000-character Korean message is 45 KB percent-encoded).
    static let maximumFormBytes = 1 << 20

    var isExempt: @Sendable (String) -> Bool = { _ in false }
    /// Routes that read multipart forms themselves (uploads): their token is checked by the
    /// upload reader, from the header or the form's leading `_csrf` field, before any file is
    /// kept. Any other route refuses multipart bodies.
    var multipartPaths: @Sendable (String) -> Bool = { _ in false }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard ![.get, .head, .options].contains(request.method), !isExempt(request.uri.path) else {
            return try await next(request, context)
        }
        return try await checked(request, context, next)
    }

    /// A state-changing request goes on only with the right token (a separate frame, so reads,
    /// event streams included, do not carry this one).
    @inline(never)
    private func checked(_ request: Request, _ context: Context,
                         _ next: (Request, Context) async throws -> Response) async throws -> Response {
        var request = request
        var context = context
        if request.headers[.contentType]?.lowercased().hasPrefix("multipart/form-data") == true {
            guard multipartPaths(request.uri.path) else { throw AppError(status: .unsupportedMediaType, messageKey: nil) }
            return try await next(request, context)
        }
        if request.headers[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true {
            let body: ByteBuffer
            do {
                body = try await request.collectBody(upTo: Self.maximumFormBytes)
            } catch is NIOTooManyBytesError {
                throw AppError.tooLarge
            }
            context.visitor.form = FormData(urlEncoded: String(buffer: body))
        }
        let offered = request.headers[Self.headerName] ?? context.visitor.form?[Self.fieldName]
        guard let offered, !context.visitor.csrfToken.isEmpty,
              SecretToken.constantTimeEquals(offered, context.visitor.csrfToken)
        else {
            context.logger.notice("CSRF token missing or wrong", metadata: ["route": "\(context.endpointPath ?? "NotFound")"])
            throw AppError.csrfRejected
        }
        if context.visitor.form == nil { context.visitor.form = FormData(fields: []) }
        return try await next(request, context)
    }
}
