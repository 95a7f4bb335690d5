import Hummingbird

/// The front door and the health probe.
struct HomeController: Sendable {
    let database: AppDatabase

    /// `/healthz` is registered before the session middleware: probes carry no cookies and must
    /// not touch the sessions table.
    func addProbeRoutes(to router: Router<AppRequestContext>) {
        router.get(Paths.health.routerPath, use: health)
    }

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get(Paths.root.routerPath, use: home)
    }

    @Sendable func home(_ request: Request, context: AppRequestContext) async throws -> Response {
        Pages.redirect(to: context.visitor.user == nil ? Paths.login() : Paths.workspaces())
    }

    /// 200 `ok` once the database answers; 503 otherwise.
    @Sendable func health(_ request: Request, context: AppRequestContext) async throws -> Response {
        let reachable = await database.isReachable()
        return Response(status: reachable ? .ok : .serviceUnavailable,
                        headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
                        body: .init(byteBuffer: ByteBuffer(string: reachable ? "ok\n" : "database unavailable\n")))
    }
}
