import Foundation

/// Writes an export in Slack's layout into a new zip: JSON files deflated, files under
/// `__uploads/<file id>/<name>` stored as they are (pictures and PDFs do not shrink). The zip is
/// whole once `finish()` has written its directory.
public final class SlackArchiveWriter {
    private let zip: ZipStreamWriter

    /// Creates the zip at `url` (which must not exist yet), readable by its owner alone (an
    /// export holds people's addresses and, when asked, their private conversations); every
    /// member is dated `modified`.
    public init(url: URL, modified: Date) throws {
        zip = try ZipStreamWriter(url: url, modified: modified)
    }

    /// Adds `value` as the JSON file `path`.
    public func add(json path: String, _ value: some Encodable) throws {
        try add(path, data: SlackJSON.encoder().encode(value), compressed: true)
    }

    /// Adds a member with these bytes.
    public func add(_ path: String, data: Data, compressed: Bool) throws {
        try zip.add(path, data: data, compressed: compressed)
    }

    /// Writes the zip's directory and closes it.
    public func finish() throws {
        try zip.finish()
    }

    /// Zips an unpacked export folder again (every file below it, by its path there), as Slack
    /// would have: for exports someone unpacked, and for the tests' fixture.
    public static func zip(folder: URL, to url: URL, modified: Date) throws {
        let writer = try SlackArchiveWriter(url: url, modified: modified)
        let base = folder.standardizedFileURL.path
        let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey])
        var files: [(String, URL)] = []
        while let file = walker?.nextObject() as? URL {
            guard (try? file.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else { continue }
            let path = file.standardizedFileURL.path
            files.append((String(path.dropFirst(base.count + 1)), file))
        }
        for (path, file) in files.sorted(by: { $0.0 < $1.0 }) {
            try writer.add(path, data: try Data(contentsOf: file), compressed: path.hasSuffix(".json"))
        }
        try writer.finish()
    }

    /// The folder a file shared in a message is put in, as export tools lay it out.
    public static func uploadPath(fileId: String, name: String) -> String {
        let safe = name.replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "\\", with: "_")
        return "__uploads/\(fileId)/\(safe.isEmpty || safe == "." || safe == ".." ? "file" : safe)"
    }
}
