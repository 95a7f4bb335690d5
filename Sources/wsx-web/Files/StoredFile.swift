import Foundation
import Uploads

/// A row of `files`: one upload; its bytes are on disk under `sha256`.
struct StoredFile: Codable, Sendable, Equatable {
    var id: Int64?
    var sha256: String
    var mime: String
    var size: Int
    var originalName: String
    var width: Int?
    var height: Int?
    var hasThumbnail: Bool
    var uploaderId: Int64?
    var createdAt: Date

    enum CodingKeys: String, CodingKey {
        case id, sha256, mime, size, originalName = "original_name", width, height, hasThumbnail = "has_thumbnail"
        case uploaderId = "uploader_id", createdAt = "created_at"
    }

    var isImage: Bool { mime.hasPrefix("image/") }

    /// Where it downloads from, ending in its name so saved files keep it.
    var url: String {
        Paths.file(id!, originalName)
    }

    var thumbnailURL: String { Paths.thumbnail(id!) }

    /// The same file as a download, for files the browser would otherwise show (PDFs).
    var downloadURL: String { Paths.file(id!, originalName, query: Paths.query(["download": "1"])) }

    /// A PDF (by its bytes): opened in the browser's own viewer, in a sandbox.
    var isPDF: Bool { mime == "application/pdf" }

    /// Video or audio the browser plays in the page (`UploadPolicy.playableTypes`); other
    /// media downloads like any document.
    var isPlayable: Bool { UploadPolicy.playableTypes.contains(mime) }

    /// The short label of its card: what people call the format.
    var kindLabel: String {
        if let label = Self.kindLabels[mime] { return label }
        if mime.hasPrefix("video/") { return "VIDEO" }
        if mime.hasPrefix("audio/") { return "AUDIO" }
        return "FILE"
    }

    private static let kindLabels: [String: String] = [
        "application/pdf": "PDF", "application/zip": "ZIP", "application/x-hwp": "HWP", "application/hwp+zip": "HWPX",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "DOCX",
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "XLSX",
        "application/vnd.openxmlformats-officedocument.presentationml.presentation": "PPTX",
        "application/vnd.oasis.opendocument.text": "ODT", "application/vnd.oasis.opendocument.spreadsheet": "ODS",
        "application/vnd.oasis.opendocument.presentation": "ODP",
        "application/msword": "DOC", "application/vnd.ms-excel": "XLS", "application/vnd.ms-powerpoint": "PPT",
        "text/plain": "TXT", "text/csv": "CSV", "text/markdown": "MD",
        "video/mp4": "MP4", "video/webm": "WEBM", "video/quicktime": "MOV",
        "audio/mpeg": "MP3", "audio/mp4": "M4A", "audio/x-m4a": "M4A", "audio/ogg": "OGG",
    ]
}

/// A received upload made ready to store: its thumbnail made (images) and its bytes in place.
struct PreparedFile: Sendable {
    let received: ReceivedFile
    let width: Int?
    let height: Int?
    let hasThumbnail: Bool

    func record(uploader: Int64, at now: Date) -> StoredFile {
        StoredFile(id: nil, sha256: received.sha256, mime: received.mimeType, size: received.size,
                   originalName: received.name, width: width, height: height, hasThumbnail: hasThumbnail,
                   uploaderId: uploader, createdAt: now)
    }
}
