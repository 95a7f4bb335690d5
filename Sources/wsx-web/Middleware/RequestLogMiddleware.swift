import Hummingbird
import Logging

/// One log line per request, written when its answer is known: method, the route's template
/// (`/invite/{token}`, never `/invite/3kX…`), status, duration and the client's address (the
/// forwarded one only with `--trust-proxy`); the same numbers but the address go to the
/// server's metrics (`/metrics`), counted and timed by route template, method and status.
///
/// Paths carry secrets (invitation and password-reset tokens) and so do some query strings, and
/// logs travel further than the database (terminals, journald, log shippers): a reset token
/// copied from a log took over an account. So neither the path nor the query is ever logged,
/// only the template the router matched (`NotFound` when none did).
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let level: Logger.Level
    let metrics: ServerMetrics?
    let trustProxy: Bool

    init(_ level: Logger.Level, metrics: ServerMetrics? = nil, trustProxy: Bool = false) {
        self.level = level
        self.metrics = metrics
        self.trustProxy = trustProxy
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            log(request, context, status: Int(response.status.code), since: start)
            return response
        } catch {
            log(request, context, status: Int((error as? any HTTPResponseError)?.status.code ?? 500), since: start)
            throw error
        }
    }

    private func log(_ request: Request, _ context: Context, status: Int, since start: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - start
        metrics?.request(route: context.endpointPath ?? "NotFound", method: request.method.rawValue, status: status, took: elapsed)
        guard context.logger.logLevel <= level else { return }
        let microseconds = elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000
        context.logger.log(level: level, "request", metadata: [
            "method": .string(request.method.rawValue),
            "route": .string(context.endpointPath ?? "NotFound"),
            "status": .stringConvertible(status),
            "us": .stringConvertible(microseconds),
            "client": .string(ClientAddress.of(request, peer: context.peerAddress, trustProxy: trustProxy)),
        ])
    }
}
