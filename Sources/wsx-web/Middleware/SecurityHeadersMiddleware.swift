import HTTPTypes
import Hummingbird

/// The headers every response carries: a Content-Security-Policy without inline script,
/// `nosniff`, a referrer policy that keeps one-time link tokens on this site, and no framing.
/// The middleware adds them to the router's responses; the event-stream handler to its own.
enum SecurityHeaders {
    static let contentSecurityPolicy = contentSecurityPolicy(frameAncestors: "'none'")

    /// The same policy, framed only by `frameAncestors` (a thread's side panel: `'self'`).
    static func contentSecurityPolicy(frameAncestors: String) -> String {
        [
            "default-src 'self'",
            "script-src 'self'",
            "style-src 'self'",
            "img-src 'self' data: blob:",
            "connect-src 'self'",
            "font-src 'self'",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'self'",
            "frame-ancestors \(frameAncestors)",
        ].joined(separator: "; ")
    }

    static func add(to headers: inout HTTPFields) {
        // A page that needs more (the PortOne checkout loads iamport's SDK) sets its own.
        if headers[.contentSecurityPolicy] == nil {
            headers[.contentSecurityPolicy] = contentSecurityPolicy
        }
        headers[.xContentTypeOptions] = "nosniff"
        headers[referrerPolicy] = "same-origin"
        // A page that may be framed by the site itself (a thread's side panel) says so.
        if headers[frameOptions] == nil { headers[frameOptions] = "DENY" }
    }

    // Built once: joining the policy and checking these names ran on every response.
    private static let referrerPolicy = HTTPField.Name("Referrer-Policy")!, frameOptions = HTTPField.Name("X-Frame-Options")!
}

/// Adds `SecurityHeaders` to every response of the router.
struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        SecurityHeaders.add(to: &response.headers)
        return response
    }
}
