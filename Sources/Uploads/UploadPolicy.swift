import Foundation
import Views

/// What wsx accepts: a few file types, decided by their bytes, within size and pixel limits.
public struct UploadPolicy: Sendable {
    /// A type wsx accepts.
    public enum Kind: String, Sendable {
        case image, pdf, zip
    }

    /// Sniffed MIME type → kind. Everything else (HTML, SVG, scripts, executables, …) is refused.
    public static let allowedTypes: [String: Kind] = [
        "image/jpeg": .image, "image/png": .image, "image/gif": .image, "image/webp": .image,
        "application/pdf": .pdf, "application/zip": .zip,
    ]
    /// The libvips loaders allowed to read images (never svgload, pdfload, magickload, …).
    public static let allowedLoaders: Set<String> = ["jpegload", "pngload", "gifload", "webpload"]

    /// The allowed types as people read them, for the 415 page.
    public static let allowedDescription = "JPEG, PNG, GIF, WebP, PDF, ZIP"

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

    public init(maximumFiles: Int = 5, maximumFileBytes: Int = 5 * 1024 * 1024, maximumPixels: Int = 50_000_000,
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
