import Hummingbird

/// The front door (the last room for someone signed in, `LastRooms`) and the health probe.
struct HomeController: Sendable {
    let health: HealthCheck
    let lastRooms: LastRooms

    /// `/healthz` is registered before the session middleware: probes carry no cookies and must
    /// not touch the sessions table.
    func addProbeRoutes(to router: Router<AppRequestContext>) {
        router.get(Paths.health.routerPath, use: health)
    }

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get(Paths.root.routerPath, use: home)
    }

    @Sendable func home(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let user = context.visitor.user else { return Pages.redirect(to: Paths.login()) }
        return Pages.redirect(to: try lastRooms.start(userId: user.id!))
    }

    /// 200 `ok` while the server can do its work; 503 with the reason when it cannot (a full
    /// disk, a database that cannot be written).
    @Sendable func health(_ request: Request, context: AppRequestContext) async throws -> Response {
        let problem = await health.problem()
        return Response(status: problem == nil ? .ok : .serviceUnavailable,
                        headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
                        body: .init(byteBuffer: ByteBuffer(string: (problem ?? "ok") + "\n")))
    }
}
