import Foundation

/// Uploaded bytes on disk, named by their SHA-256 (the same bytes are stored once) under the
/// data folder, never by a name a client chose. Temporary uploads live in `tmp/` until adopted.
public struct FileStore: Sendable {
    public let root: URL

    public init(dataDirectory: String) throws {
        root = URL(fileURLWithPath: dataDirectory, isDirectory: true)
        for folder in [originalsFolder, thumbnailsFolder, temporaryFolder] {
            try DataFolder.createFolder(folder.path)
        }
    }

    var originalsFolder: URL { root.appendingPathComponent("files", isDirectory: true) }
    var thumbnailsFolder: URL { root.appendingPathComponent("thumbs", isDirectory: true) }
    public var temporaryFolder: URL { root.appendingPathComponent("tmp", isDirectory: true) }

    /// Where the bytes with this hash live: `files/ab/abcdef…`.
    public func original(_ sha256: String) -> URL {
        originalsFolder.appendingPathComponent(String(sha256.prefix(2)), isDirectory: true).appendingPathComponent(sha256)
    }

    /// Where the thumbnail of the bytes with this hash lives: `thumbs/ab/abcdef….jpg`.
    public func thumbnail(_ sha256: String) -> URL {
        thumbnailsFolder.appendingPathComponent(String(sha256.prefix(2)), isDirectory: true)
            .appendingPathComponent(sha256 + ".jpg")
    }

    /// A fresh temporary file path for an upload in progress.
    public func temporaryFile() -> URL {
        temporaryFolder.appendingPathComponent("upload-\(UUID().uuidString)")
    }

    /// Moves a finished upload into place; when the same bytes are already stored, the upload is
    /// simply removed. Either way the temporary file is gone afterwards.
    public func adopt(_ temporary: URL, sha256: String) throws {
        let target = original(sha256)
        let manager = FileManager.default
        if manager.fileExists(atPath: target.path) {
            try? manager.removeItem(at: temporary)
            return
        }
        try DataFolder.createFolder(target.deletingLastPathComponent().path)
        do {
            try manager.moveItem(at: temporary, to: target)
        } catch where manager.fileExists(atPath: target.path) {
            // Another upload of the same bytes won the race.
            try? manager.removeItem(at: temporary)
        }
    }

    /// Deletes the bytes and thumbnail of a hash no row refers to any more.
    public func remove(_ sha256: String) {
        try? FileManager.default.removeItem(at: original(sha256))
        try? FileManager.default.removeItem(at: thumbnail(sha256))
    }

    /// Every stored hash (for the sweep that removes bytes whose rows are gone, e.g. after a crash
    /// between a deletion's commit and its unlink).
    public func storedHashes() -> Set<String> {
        let walker = FileManager.default.enumerator(at: originalsFolder, includingPropertiesForKeys: nil)
        var hashes: Set<String> = []
        while let url = walker?.nextObject() as? URL {
            let name = url.lastPathComponent
            if name.count == 64, name.allSatisfy(\.isHexDigit) { hashes.insert(name) }
        }
        return hashes
    }

    /// Removes temporary uploads left by a crash (older than `age` seconds).
    public func removeStaleTemporaries(olderThan age: TimeInterval) {
        let manager = FileManager.default
        let cutoff = Date().addingTimeInterval(-age)
        for url in (try? manager.contentsOfDirectory(at: temporaryFolder, includingPropertiesForKeys: [.contentModificationDateKey])) ?? [] {
            let modified = (try? url.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate) ?? .distantPast
            if modified < cutoff { try? manager.removeItem(at: url) }
        }
    }
}
