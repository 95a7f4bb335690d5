import Hummingbird
import HummingbirdTesting
import Synchronization

/// A web site on loopback for tests that fetch from one (link previews): routes of the test's
/// own, a real socket on a free port, and a count of the requests it got.
public enum LocalTestSite {
    /// How many requests the site got.
    public final class Hits: Sendable {
        private let count = Mutex(0)
        public init() {}
        func add() { count.withLock { $0 += 1 } }
        public var value: Int { count.withLock { $0 } }
    }

    /// Serves `routes` on 127.0.0.1 while `body` runs with the site's base URL
    /// (`http://127.0.0.1:PORT`) and its request count.
    public static func run(_ routes: (Router<BasicRequestContext>) -> Void,
                           _ body: @Sendable (String, Hits) async throws -> Void) async throws {
        let hits = Hits()
        let router = Router()
        router.middlewares.add(Counting(hits: hits))
        routes(router)
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            guard let port = client.port else { throw NoPort() }
            try await body("http://127.0.0.1:\(port)", hits)
        }
    }

    struct NoPort: Error {}

    struct Counting<Context: RequestContext>: RouterMiddleware {
        let hits: Hits
        func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
            hits.add()
            return try await next(request, context)
        }
    }
}
