import Crypto
import Foundation

/// The files of `Public/`: the stylesheet, the script, icons. Served under `/static/` with an
/// `ETag`, and linked from pages as `/static/app.css?v=<hash>` so browsers may cache them for a year.
struct StaticAssets: Sendable {
    /// Where the files come from.
    enum Source: Sendable {
        /// Embedded files keyed by their path inside `Public/`.
        case files([String: Data])
        /// Development: a folder read on every request, so edits show on reload.
        case directory(String)
    }

    /// One file ready to serve.
    struct Asset: Sendable {
        let data: Data
        let contentType: String
        /// A short hash of the bytes; the `ETag` and the `?v=` of links.
        let version: String
        /// The same bytes compressed at build time (text files, when it made them smaller).
        var brotli: Data? = nil
        var gzip: Data? = nil

        /// The bytes to send to a client that accepts `acceptEncoding`, and their coding
        /// (nil: as they are): Brotli first, then gzip.
        func encoded(for acceptEncoding: String?) -> (data: Data, coding: String?) {
            let accepted = StaticAssets.codings(acceptEncoding)
            if let brotli, accepted.contains("br") { return (brotli, "br") }
            if let gzip, accepted.contains("gzip") { return (gzip, "gzip") }
            return (data, nil)
        }

        /// Whether the bytes sent depend on `Accept-Encoding` (the answer says `Vary`).
        var varies: Bool { brotli != nil || gzip != nil }
    }

    private let source: Source
    private let embedded: [String: Asset]
    /// The cache-busting URL of each embedded file, built once: pages link several on every request.
    private let embeddedURLs: [String: String]

    /// `compressed`: the build's compressed copies of text files, keyed `app.css.br`, `app.css.gz`.
    init(source: Source, compressed: [String: Data] = [:]) throws {
        self.source = source
        switch source {
        case .files(let files):
            let assets = files.reduce(into: [String: Asset]()) { table, file in
                var asset = Self.asset(file.key, file.value)
                (asset.brotli, asset.gzip) = (compressed[file.key + ".br"], compressed[file.key + ".gz"])
                table[file.key] = asset
            }
            embedded = assets
            embeddedURLs = assets.reduce(into: [:]) { table, entry in table[entry.key] = Self.versionedURL(entry.key, entry.value.version) }
        case .directory(let path):
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw AssetError.missingDirectory(path)
            }
            embedded = [:]
            embeddedURLs = [:]
        }
    }

    /// The file at `path` inside `Public/` (e.g. `app.css`); nil for unknown or unsafe paths.
    func asset(at path: String) -> Asset? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard !path.isEmpty, parts.allSatisfy({ !$0.isEmpty && !$0.hasPrefix(".") }) else { return nil }
        switch source {
        case .files:
            return embedded[path]
        case .directory(let root):
            let url = URL(fileURLWithPath: root).appendingPathComponent(path)
            guard let data = try? Data(contentsOf: url) else { return nil }
            return Self.asset(path, data)
        }
    }

    /// The cache-busting URL of a file, e.g. `/static/app.css?v=1a2b3c4d5e6f`.
    func url(for path: String) -> String {
        if let url = embeddedURLs[path] { return url }
        guard let asset = asset(at: path) else { return "/static/" + path }
        return Self.versionedURL(path, asset.version)
    }

    private static func versionedURL(_ path: String, _ version: String) -> String {
        "/static/\(path)?v=\(version)"
    }

    private static func asset(_ path: String, _ data: Data) -> Asset {
        let digest = SHA256.hash(data: data).prefix(6).hexString
        return Asset(data: data, contentType: contentType(forPath: path), version: digest)
    }

    /// The content codings an `Accept-Encoding` header accepts (those without `q=0`), lowercased.
    static func codings(_ header: String?) -> Set<String> {
        guard let header else { return [] }
        var accepted: Set<String> = []
        for part in header.split(separator: ",") {
            let pieces = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let name = pieces.first, !name.isEmpty else { continue }
            let refused = pieces.dropFirst().contains { $0.hasPrefix("q=") && Double($0.dropFirst(2)) == 0 }
            if !refused { accepted.insert(name) }
        }
        return accepted
    }

    static func contentType(forPath path: String) -> String {
        switch (path as NSString).pathExtension.lowercased() {
        case "css": "text/css; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "json": "application/json"
        case "webmanifest": "application/manifest+json"
        case "html": "text/html; charset=utf-8"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "ico": "image/x-icon"
        case "webp": "image/webp"
        case "woff2": "font/woff2"
        case "txt": "text/plain; charset=utf-8"
        case "tsv": "text/tab-separated-values; charset=utf-8"
        default: "application/octet-stream"
        }
    }
}

enum AssetError: Error, CustomStringConvertible {
    case missingDirectory(String)

    var description: String {
        switch self {
        case .missingDirectory(let path): "public folder \(path) does not exist"
        }
    }
}
