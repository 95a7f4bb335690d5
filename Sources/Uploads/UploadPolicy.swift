import Foundation
import Views

/// What wsx accepts: the files a team shares, decided by their bytes (libmagic, then the
/// container's own structure: `ContainerTypes`), within size and pixel limits.
public struct UploadPolicy: Sendable {
    /// A type wsx accepts.
    public enum Kind: String, Sendable {
        /// Shown as a thumbnail, opened full size.
        case image
        /// Opened in the browser's viewer (sandboxed) or downloaded.
        case pdf
        /// Downloaded: archives, office documents (HWP, OOXML, ODF), plain text and CSV.
        case zip, document
        /// Played in the page where the browser can (`<video>`, `<audio>`), else downloaded.
        case video, audio
    }

    /// Sniffed (and refined) MIME type → kind. Everything else (HTML, SVG, scripts,
    /// executables, …) is refused: none of these is served as anything a browser runs.
    public static let allowedTypes: [String: Kind] = [
        "image/jpeg": .image, "image/png": .image, "image/gif": .image, "image/webp": .image,
        "application/pdf": .pdf, "application/zip": .zip,
        "application/x-hwp": .document, "application/hwp+zip": .document,
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document": .document,
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": .document,
        "application/vnd.openxmlformats-officedocument.presentationml.presentation": .document,
        "application/vnd.oasis.opendocument.text": .document, "application/vnd.oasis.opendocument.spreadsheet": .document,
        "application/vnd.oasis.opendocument.presentation": .document,
        "application/msword": .document, "application/vnd.ms-excel": .document, "application/vnd.ms-powerpoint": .document,
        "text/plain": .document, "text/csv": .document, "text/markdown": .document,
        "video/mp4": .video, "video/webm": .video, "video/quicktime": .video,
        "audio/mpeg": .audio, "audio/mp4": .audio, "audio/x-m4a": .audio, "audio/ogg": .audio,
    ]

    /// The file picker's `accept` list: the types above and their usual extensions (a picker
    /// may not know a type, like HWP's). Only a convenience: the bytes decide.
    public static let acceptList = (allowedTypes.keys.sorted() + [
        ".hwp", ".hwpx", ".docx", ".xlsx", ".pptx", ".odt", ".ods", ".odp", ".doc", ".xls", ".ppt",
        ".txt", ".csv", ".md", ".zip", ".pdf", ".mp4", ".mov", ".webm", ".mp3", ".m4a", ".ogg",
    ]).joined(separator: ",")

    /// The types browsers here play in the page; other video and audio downloads.
    public static let playableTypes: Set<String> = ["video/mp4", "video/webm", "audio/mpeg", "audio/mp4", "audio/x-m4a", "audio/ogg"]
    /// The libvips loaders allowed to read images (never svgload, pdfload, magickload, …).
    public static let allowedLoaders: Set<String> = ["jpegload", "pngload", "gifload", "webpload"]

    /// The allowed types as people read them, for the 415 page.
    public static let allowedDescription = "JPEG, PNG, GIF, WebP, PDF, ZIP, HWP, HWPX, DOCX, XLSX, PPTX, ODF, TXT, CSV, MP4, MOV, WebM, MP3, M4A"

    public var maximumFiles: Int
    public var maximumFileBytes: Int
    /// Decoded pixels an image may have (decompression bombs are refused by their header).
    public var maximumPixels: Int
    /// Memory one image may take decoded (pixels × bands × bytes per sample): an 8-bit RGBA
    /// image at the pixel limit by default.
    public var maximumDecodeBytes: Int
    /// Memory all images being decoded at once may take together; an image waits for its share.
    public var decodeMemory: Int
    /// Bytes of text fields (a 5,000-character message is at most 20 KB of UTF-8).
    public var maximumFieldBytes: Int

    /// 100 MB a file: phone videos and office documents fit (uploads stream to disk, so memory
    /// stays flat whatever the size).
    public init(maximumFiles: Int = 5, maximumFileBytes: Int = 100 << 20, maximumPixels: Int = 50_000_000,
                maximumFieldBytes: Int = 64 * 1024, maximumDecodeBytes: Int? = nil, decodeMemory: Int = 512 << 20) {
        self.maximumFiles = maximumFiles
        self.maximumFileBytes = maximumFileBytes
        self.maximumPixels = maximumPixels
        self.maximumFieldBytes = maximumFieldBytes
        self.maximumDecodeBytes = maximumDecodeBytes ?? maximumPixels * 4
        self.decodeMemory = decodeMemory
    }

    /// The most a whole request may carry: every file at its limit plus the fields and framing.
    public var maximumRequestBytes: Int {
        maximumFiles * maximumFileBytes + 4 * maximumFieldBytes + 64 * 1024
    }
}

/// A file name as given by a client, made safe to keep and show: NFC (macOS sends NFD), no
/// path, no control characters, at most 200 characters (and their bytes, without stacked marks:
/// `TextLimit`); never used as a path on disk.
public enum FileName {
    public static let limit = TextLimit(characters: 200)

    public static func clean(_ raw: String?) -> String {
        let base = (raw ?? "").split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        let scalars = base.precomposedStringWithCanonicalMapping.unicodeScalars.filter { scalar in
            scalar.properties.generalCategory != .control
                && !(0x202A...0x202E).contains(scalar.value) && !(0x2066...0x2069).contains(scalar.value)
        }
        let cleaned = String(String.UnicodeScalarView(scalars)).trimmingCharacters(in: .whitespacesAndNewlines)
        let name = cleaned.isEmpty || cleaned == "." || cleaned == ".." ? "file" : cleaned
        return limit.clamped(name)
    }
}
