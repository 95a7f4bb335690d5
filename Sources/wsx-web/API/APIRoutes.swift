import Hummingbird
import Synchronization

/// The `/v1` routes as they are added, so that every other method on a known path, and every
/// path not known, answers `E97` (the router's own 404 and 405 would be HTML pages the apps
/// cannot read, after the pages' CSRF check).
final class APIRoutes: Sendable {
    let group: RouterGroup<AppRequestContext>
    private let methods = Mutex<[String: Set<HTTPRequest.Method>]>([:])

    init(_ group: RouterGroup<AppRequestContext>) {
        self.group = group
    }

    typealias Handler = @Sendable (Request, AppRequestContext) async throws -> Response

    func get(_ path: String, use handler: @escaping Handler) { on(path, .get, handler) }
    func post(_ path: String, use handler: @escaping Handler) { on(path, .post, handler) }
    func put(_ path: String, use handler: @escaping Handler) { on(path, .put, handler) }
    func delete(_ path: String, use handler: @escaping Handler) { on(path, .delete, handler) }

    private func on(_ path: String, _ method: HTTPRequest.Method, _ handler: @escaping Handler) {
        group.on(RouterPath(path), method: method, use: handler)
        methods.withLock { _ = $0[path, default: []].insert(method) }
    }

    /// Adds `E97` for everything not added: other methods on known paths, and unknown paths.
    func finish() {
        let unknown: Handler = { _, _ in APIError.unknownRoute.response }
        let all: [HTTPRequest.Method] = [.get, .post, .put, .delete, .patch]
        for (path, taken) in methods.withLock({ $0 }) {
            for method in all where !taken.contains(method) { group.on(RouterPath(path), method: method, use: unknown) }
        }
        for method in all {
            group.on("**", method: method, use: unknown)
            group.on("", method: method, use: unknown)
        }
    }
}
