import Hummingbird
import Logging
import NIOCore

/// `GET /events` as far as the router sees it: the refusal for a browser without a session, and
/// the answers to the requests that only look like a stream.
///
/// Signed-in streams never get here: `EventStreamHandler` serves them on the connection's event
/// loop, below the router, and passes on only the requests it does not take. Those are answered
/// like any other route: `HEAD` (the router makes one for every GET) is a 405, and paths the
/// router's matching folds onto `/events` (`/events/`, `//events`) are a 404.
struct EventsController: Sendable {
    func addRoutes(to router: Router<AppRequestContext>) {
        router.get(Paths.events.routerPath, use: refuse)
    }

    @Sendable func refuse(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard request.uri.path == Paths.events() else { throw AppError.notFound }
        guard request.method == .get else {
            throw AppError(status: .methodNotAllowed, messageKey: nil, headers: [.allow: "GET"])
        }
        if context.visitor.user != nil {
            // Only when the server was built without the handler (a wiring mistake): say so.
            context.logger.error("a signed-in event stream reached the router; EventStreamHandler is not installed")
            return Response(status: .serviceUnavailable, headers: [.contentType: "text/plain; charset=utf-8"],
                            body: .init(byteBuffer: ByteBuffer(string: "event streams are unavailable\n")))
        }
        // Not the login redirect pages get: EventSource must see a plain refusal.
        return Response(status: .unauthorized, headers: [.contentType: "text/plain; charset=utf-8"],
                        body: .init(byteBuffer: ByteBuffer(string: "sign in first\n")))
    }
}
