import Foundation
import Hummingbird
import Uploads

/// `GET /v1/static/<bucket>/<name>_<id>.<ext>` (`../shared/APP-API.md` §3.6, §8): a file the
/// caller may see, under the web's rules for downloads (`FileService.accessible`: their own,
/// in a room they are in, or picturing a workspace, room or person they share), with the web's
/// headers: the type its bytes have, `nosniff`, `attachment` for anything but pictures. Always
/// the whole file with `200`: the apps take no other status as success.
struct FilesAPIController: Sendable {
    let access: APIAccess
    let files: FileService
    let assets: StaticAssets

    func addRoutes(to v1: APIRoutes) {
        v1.get("static/**", use: file)
    }

    @Sendable func file(_ request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try await access.caller(request)
        let path = context.parameters.getCatchAll().joined(separator: "/")
        if "/static/" + path == APIStaticPaths.defaultCover, let cover = assets.asset(at: "icons/icon-512.png") {
            return Response(status: .ok, headers: [.contentType: cover.contentType, .cacheControl: "public, max-age=86400"],
                            body: .init(byteBuffer: ByteBuffer(bytes: cover.data)))
        }
        guard let publicId = APIStaticPaths.publicId(in: path),
              let id = try await access.database.queryOffLoop({ tx in try tx.publicIds.id(of: publicId, in: .files) })
        else { throw APIError.notFound }
        let file: StoredFile
        do {
            file = try await files.accessible(fileId: id, userId: caller.id!)
        } catch let error as AppError where error.status == .notFound {
            throw APIError.notFound
        }
        let headers: HTTPFields = [
            .contentType: file.mime, .cacheControl: "private, max-age=86400", .contentLength: String(file.size),
            .contentDisposition: DownloadHeaders.contentDisposition(file.originalName, inline: file.isImage),
        ]
        return Response(status: .ok, headers: headers,
                        body: try await FileIO().loadFile(path: files.store.original(file.sha256).path, context: context))
    }
}
