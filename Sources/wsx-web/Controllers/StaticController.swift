import Foundation
import Hummingbird

/// `/static/**`: the files of `Public/`. A request naming the current version (`?v=`) may be
/// cached for a year; any other is revalidated by `ETag`. And `/favicon.ico`, which browsers
/// ask for by that name.
struct StaticController: Sendable {
    let assets: StaticAssets

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/static/**", use: serve)
        router.get(Paths.favicon.routerPath, use: favicon)
        router.get(Paths.serviceWorker.routerPath, use: serviceWorker)
        router.get(Paths.manifest.routerPath, use: manifest)
    }

    /// `/sw.js`: the service worker, served at the root so its scope is the whole site, and
    /// revalidated on every check so an update reaches browsers.
    @Sendable func serviceWorker(_ request: Request, context: AppRequestContext) async throws -> Response {
        try unversioned("sw.js", request)
    }

    /// `/manifest.webmanifest`: what a browser installs the site as.
    @Sendable func manifest(_ request: Request, context: AppRequestContext) async throws -> Response {
        try unversioned("manifest.webmanifest", request)
    }

    private func unversioned(_ path: String, _ request: Request) throws -> Response {
        guard let asset = assets.asset(at: path) else { throw AppError.notFound }
        return Self.answer(asset, request, headers: [.cacheControl: "no-cache"])
    }

    @Sendable func favicon(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let asset = assets.asset(at: "favicon.ico") else { throw AppError.notFound }
        return Response(status: .ok, headers: [.contentType: asset.contentType, .cacheControl: "public, max-age=86400"],
                        body: .init(byteBuffer: ByteBuffer(bytes: asset.data)))
    }

    @Sendable func serve(_ request: Request, context: AppRequestContext) async throws -> Response {
        let path = context.parameters.getCatchAll().joined(separator: "/")
        guard let asset = assets.asset(at: path) else { throw AppError.notFound }
        let pinned = request.uri.queryParameters["v"].map(String.init) == asset.version
        return Self.answer(asset, request, headers: [.cacheControl: pinned ? "public, max-age=31536000, immutable" : "no-cache"])
    }

    /// The file, or `304` when the client has it; compressed as the client accepts, from the
    /// copies made at build time (`Vary: Accept-Encoding` whenever there are such copies).
    /// Each coding is its own representation, with its own `ETag`.
    static func answer(_ asset: StaticAssets.Asset, _ request: Request, headers: HTTPFields) -> Response {
        var headers = headers
        if asset.varies { headers[.vary] = "Accept-Encoding" }
        let (data, coding) = asset.encoded(for: request.headers[.acceptEncoding])
        let etag = "\"\(asset.version)\(coding.map { "-" + $0 } ?? "")\""
        headers[.eTag] = etag
        if request.headers[.ifNoneMatch] == etag {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = asset.contentType
        if let coding { headers[.contentEncoding] = coding }
        headers[.contentLength] = String(data.count)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
