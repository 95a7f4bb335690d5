import Foundation
import Hummingbird
import Uploads

/// `/files/{fid}/{name}` and `/files/{fid}/thumb`: downloads for the people who may see a file
/// (everyone else gets a 404). Served with our sniffed type (and `nosniff`, added to every
/// response), `attachment` for everything but images, PDFs (`inline` under `CSP: sandbox`) and playable video
/// and audio, an ETag from the hash, private caching
/// and byte ranges.
struct FilesController: Sendable {
    let files: FileService

    func addRoutes(to group: RouterGroup<SignedInContext>) {
        group.get(Paths.thumbnail.routerPath, use: thumbnail)
        group.get(Paths.file.routerPath, use: original)
    }

    @Sendable func original(_ request: Request, context: SignedInContext) async throws -> Response {
        let file = try await files.accessible(fileId: try context.id("fid"), userId: context.userId)
        // PDFs open in the browser's own viewer (a new tab, never a frame: Chromium refuses its
        // viewer in sandboxed frames), sandboxed so a PDF's script cannot act as the site; its
        // Download link asks for the attachment.
        // Playable video and audio are inline too, for `<video>`/`<audio>` (with byte ranges).
        let viewable = file.isImage || ((file.isPDF || file.isPlayable) && request.uri.queryParameters["download"] == nil)
        return try await serve(path: files.store.original(file.sha256).path, size: file.size, type: file.mime,
                               etag: file.sha256, disposition: DownloadHeaders.contentDisposition(file.originalName, inline: viewable),
                               sandboxed: file.isPDF, request: request, context: context)
    }

    @Sendable func thumbnail(_ request: Request, context: SignedInContext) async throws -> Response {
        let file = try await files.accessible(fileId: try context.id("fid"), userId: context.userId)
        guard file.hasThumbnail else { throw AppError.notFound }
        let path = files.store.thumbnail(file.sha256).path
        let size = ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? Int) ?? 0
        guard size > 0 else { throw AppError.notFound }
        return try await serve(path: path, size: size, type: "image/jpeg", etag: file.sha256 + "-t",
                               disposition: DownloadHeaders.contentDisposition(file.originalName + ".jpg", inline: true),
                               request: request, context: context)
    }

    private func serve(path: String, size: Int, type: String, etag: String, disposition: String, sandboxed: Bool = false,
                       request: Request, context: SignedInContext) async throws -> Response {
        let quoted = "\"\(etag)\""
        var headers: HTTPFields = [
            .contentType: type, .eTag: quoted, .cacheControl: "private, max-age=86400", .acceptRanges: "bytes",
            .contentDisposition: disposition,
        ]
        if sandboxed { headers[.contentSecurityPolicy] = "sandbox" }
        if request.headers[.ifNoneMatch] == quoted { return Response(status: .notModified, headers: headers) }
        let fileIO = FileIO()
        switch DownloadHeaders.range(request.headers[.range], size: size) {
        case .whole:
            headers[.contentLength] = String(size)
            return Response(status: .ok, headers: headers, body: try await fileIO.loadFile(path: path, context: context))
        case .partial(let range):
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(size)"
            headers[.contentLength] = String(range.count)
            return Response(status: .partialContent, headers: headers,
                            body: try await fileIO.loadFile(path: path, range: range, context: context))
        case .unsatisfiable:
            return Response(status: .rangeNotSatisfiable, headers: [.contentRange: "bytes */\(size)"])
        }
    }
}
