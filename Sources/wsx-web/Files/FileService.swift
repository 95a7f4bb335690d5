import Foundation
import Hummingbird
import Logging
import Uploads

/// Uploads as the app uses them: receiving a multipart request (CSRF checked before any file is
/// kept, length refused before reading), preparing files (thumbnails, bytes into the store),
/// finding what a person may download, and removing what nothing refers to any more.
struct FileService: Sendable {
    let database: AppDatabase
    let receiver: UploadReceiver
    /// Uploads that would leave less than `--min-free-space` are refused before a byte is written.
    let disk: DiskSpace
    let thumbnailer: Thumbnailer
    let clock: WallClock
    let logger: Logger
    /// Each account's upload allowance (`--upload-bytes-per-minute`).
    let rateLimiter: AccountRateLimiter

    var store: FileStore { receiver.store }
    var policy: UploadPolicy { receiver.policy }

    /// Whether a request carries a multipart form.
    static func isMultipart(_ request: Request) -> Bool {
        request.headers[.contentType]?.lowercased().hasPrefix("multipart/form-data") == true
    }

    /// Reads a multipart form. Refuses by `Content-Length` before reading anything (too large, or
    /// past the account's upload allowance); checks the CSRF token (header or the form's leading
    /// `_csrf` field) before keeping any file.
    func receive(_ request: Request, visitor: Visitor, fileFields: Set<String>) async throws -> ReceivedForm {
        let expected = visitor.csrfToken
        let headerToken = request.headers[CSRFMiddleware.headerName]
        return try await receive(request, uploader: visitor.user?.id, fileFields: fileFields) { (field: String?) -> Bool in
            guard !expected.isEmpty, let offered = headerToken ?? field else { return false }
            return SecretToken.constantTimeEquals(offered, expected)
        }
    }

    /// Reads a multipart form an app sent (`/v1`): the caller was signed in by its token before
    /// anything was read, so no CSRF token is asked for; the same limits hold.
    func receiveFromApp(_ request: Request, uploader: Int64, fileFields: Set<String>) async throws -> ReceivedForm {
        try await receive(request, uploader: uploader, fileFields: fileFields) { _ in true }
    }

    private func receive(_ request: Request, uploader: Int64?, fileFields: Set<String>,
                         accepts: (String?) -> Bool) async throws -> ReceivedForm {
        guard let boundary = request.headers[.contentType].flatMap(MultipartParser.boundary(fromContentType:)) else {
            throw AppError.badRequest
        }
        let length = request.headers[.contentLength].flatMap(Int.init)
        if let length, length > policy.maximumRequestBytes {
            // More than every file at its limit: some file is over it, the more useful thing to say.
            throw Self.refusal(UploadError.fileTooLarge(limit: policy.maximumFileBytes), policy: policy)
        }
        // The same 503 as a post on a full disk, before anything is written.
        guard disk.hasRoom(for: length ?? 0) else { throw POSIXError(.ENOSPC) }
        if let uploader, let length { try rateLimiter.charge(.upload, userId: uploader, cost: Double(length)) }
        let form: ReceivedForm
        do {
            form = try await receiver.receive(request.body, boundary: boundary, fileFields: fileFields, authorize: accepts)
        } catch let error as UploadError {
            throw Self.refusal(error, policy: policy)
        }
        // A body without a length (chunked) is charged what it turned out to hold.
        if let uploader, length == nil {
            do {
                try rateLimiter.charge(.upload, userId: uploader, cost: Double(form.files.reduce(0) { $0 + $1.size }))
            } catch {
                form.discardTemporaries()
                throw error
            }
        }
        return form
    }

    /// A settings form that may carry one picture (`image`): its fields, and the picture made
    /// ready to store (an empty file input means no change). Works for urlencoded forms too.
    func readPictureForm(_ request: Request, visitor: Visitor) async throws -> (fields: FormData, picture: PreparedFile?) {
        guard Self.isMultipart(request) else { return (visitor.form ?? FormData(fields: []), nil) }
        let form = try await receive(request, visitor: visitor, fileFields: ["image"])
        let fields = FormData(fields: form.fields)
        guard let image = form.files.first else { return (fields, nil) }
        guard form.files.count == 1 else {
            form.discardTemporaries()
            throw AppError.status(422, "error_one_picture")
        }
        guard image.kind == .image else {
            form.discardTemporaries()
            throw AppError.status(415, "error_file_type", "JPEG, PNG, GIF, WebP")
        }
        return (fields, try await prepare(form).first)
    }

    /// Makes thumbnails of images (refusing bombs and broken images) and moves the bytes into the
    /// store. On a refusal every received file is discarded.
    func prepare(_ form: ReceivedForm) async throws -> [PreparedFile] {
        var prepared: [PreparedFile] = []
        do {
            for file in form.files {
                var width: Int?, height: Int?, hasThumbnail = false
                if file.kind == .image {
                    let target = store.thumbnail(file.sha256)
                    let made = try await thumbnailer.makeThumbnail(of: file.temporaryURL, to: target)
                    (width, height) = made.image
                    hasThumbnail = true
                }
                prepared.append(PreparedFile(received: file, width: width, height: height, hasThumbnail: hasThumbnail))
            }
            for file in form.files { try store.adopt(file.temporaryURL, sha256: file.sha256) }
            return prepared
        } catch {
            form.discardTemporaries()
            for file in prepared where !FileManager.default.fileExists(atPath: store.original(file.received.sha256).path) {
                try? FileManager.default.removeItem(at: store.thumbnail(file.received.sha256))
            }
            if let error = error as? ImageError { throw Self.refusal(error, policy: policy) }
            throw error
        }
    }

    /// The file, if `userId` may download it: they uploaded it, or it is in a message of a room
    /// they are in, or it pictures a workspace, room or person of a workspace they share.
    func accessible(fileId: Int64, userId: Int64) async throws -> StoredFile {
        guard let file = try await database.queryOffLoop({ tx in try tx.files.downloadable(fileId: fileId, userId: userId) })
        else { throw AppError.notFound }
        return file
    }

    /// What a deletion is about to take away, so its files can be cleaned up right after.
    enum Scope: Sendable {
        case message(Int64)
        case room(Int64)
        case workspace(Int64)
    }

    /// The hashes of the files in `scope` (messages' files and covers).
    func hashes(in scope: Scope) async throws -> Set<String> {
        try await database.queryOffLoop { tx in try tx.files.hashes(in: scope) }
    }

    /// Deletes rows nothing refers to, then the bytes of hashes no row has (only `candidates`
    /// when given: right after a deletion; every stored hash in the hourly sweep). Safe to run at
    /// any time and again after a crash: it only looks at what the database and the disk hold now.
    /// Bytes written in the last minutes are spared (an upload may be between its move and commit).
    @discardableResult
    func collectGarbage(candidates: Set<String>? = nil) async throws -> Int {
        let remaining = try await database.write { tx in try tx.files.deleteUnreferenced() }
        // A backup is copying the files its snapshot refers to: none goes until it is done; the
        // next sweep (which looks at every stored file) removes them.
        guard let deleting = BackupLock.forDeleting(in: store.root.path) else {
            logger.notice("a backup is running: unreferenced files wait for the next sweep")
            return 0
        }
        defer { deleting.release() }
        var removed = 0
        let cutoff = clock.now().addingTimeInterval(-600)
        for hash in (candidates ?? store.storedHashes()).subtracting(remaining) {
            let path = store.original(hash).path
            let modified = (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date) ?? .distantPast
            guard modified < cutoff else { continue }
            store.remove(hash)
            removed += 1
        }
        if candidates == nil { store.removeStaleTemporaries(olderThan: 3600) }
        return removed
    }

    /// An upload refusal as the page (or JSON) people see.
    static func refusal(_ error: UploadError, policy: UploadPolicy) -> AppError {
        switch error {
        case .fileTooLarge(let limit): .closing(413, "error_file_too_large", Self.megabytes(limit))
        // A message longer than a message may be is refused like one typed in without files.
        case .fieldTooLarge("content", _): .status(422, "error_message_long")
        case .fieldTooLarge(_, let limit): .closing(413, "error_field_too_large", Self.kilobytes(limit))
        case .requestTooLarge(let limit): .closing(413, "error_request_too_large", Self.megabytes(limit))
        case .tooManyFiles(let limit): .status(413, "error_too_many_files", String(limit))
        case .unsupportedType: .status(415, "error_file_type", UploadPolicy.allowedDescription)
        case .forbidden: .csrfRejected
        case .malformed: .badRequest
        }
    }

    static func refusal(_ error: ImageError, policy: UploadPolicy) -> AppError {
        switch error {
        case .tooManyPixels(let width, let height):
            .status(422, "error_image_pixels", "\(width)×\(height)", String(policy.maximumPixels / 1_000_000))
        case .tooMuchMemory(let width, let height, let bands, let bytesPerSample):
            .status(422, "error_image_memory", "\(width)×\(height)", String(bands), String(bytesPerSample * 8),
                    String(policy.maximumDecodeBytes >> 20))
        case .unreadable, .unavailable:
            .status(422, "error_image_broken")
        }
    }

    static func kilobytes(_ bytes: Int) -> String {
        "\(bytes / 1024) KB"
    }

    static func megabytes(_ bytes: Int) -> String {
        bytes % (1024 * 1024) == 0 ? "\(bytes / (1024 * 1024)) MB" : String(format: "%.1f MB", Double(bytes) / 1_048_576)
    }
}
