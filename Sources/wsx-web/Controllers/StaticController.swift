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
    }

    @Sendable func favicon(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let asset = assets.asset(at: "favicon.ico") else { throw AppError.notFound }
        return Response(status: .ok, headers: [.contentType: asset.contentType, .cacheControl: "public, max-age=86400"],
                        body: .init(byteBuffer: ByteBuffer(bytes: asset.data)))
    }

    @Sendable func serve(_ request: Request, context: AppRequestContext) async throws -> Response {
        let path = context.parameters.getCatchAll().joined(separator: "/")
        guard let asset = assets.asset(at: path) else { throw AppError.notFound }
        let etag = "\"\(asset.version)\""
        let pinned = request.uri.queryParameters["v"].map(String.init) == asset.version
        var headers: HTTPFields = [
            .eTag: etag,
            .cacheControl: pinned ? "public, max-age=31536000, immutable" : "no-cache",
        ]
        if request.headers[.ifNoneMatch] == etag {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = asset.contentType
        headers[.contentLength] = String(asset.data.count)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: asset.data)))
    }
}
