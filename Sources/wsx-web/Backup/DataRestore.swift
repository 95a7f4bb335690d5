import Foundation
import Uploads

/// `wsx-web restore`: a backup's data folder back in place, whole and checked, or nothing.
///
/// Members are unpacked into a folder beside the data, each checksummed as it is read; only when
/// the manifest agrees with every one of them (and every stored file's bytes with its name) do
/// they move into the data folder. A folder that already holds data is refused unless the
/// operator says to replace it.
struct DataRestore {
    let archive: String
    let dataDirectory: String
    /// Replace the wsx data already in the folder (`--force`).
    let replacing: Bool

    /// What a data folder of wsx holds, removed before a restore that replaces it.
    static let dataItems = ["wsx.sqlite", "wsx.sqlite-wal", "wsx.sqlite-shm", "files", "thumbs", "tmp", "backup.lock"]
        + DataBackup.secretFiles

    func run() throws -> BackupManifest {
        guard let input = FileHandle(forReadingAtPath: archive) else { throw BackupError("cannot read \(archive)") }
        defer { try? input.close() }
        try DataFolder.createFolder(dataDirectory)
        // Held until the data is in place: a server running on the folder refuses the restore,
        // and none starts on a half-restored one.
        let lock = try DataFolderLock.acquire(dataDirectory: dataDirectory)
        return try withExtendedLifetime(lock) {
            do {
                return try restore(from: input)
            } catch {
                lock.removeIfCreated()
                throw error
            }
        }
    }

    private func restore(from input: FileHandle) throws -> BackupManifest {
        let manager = FileManager.default
        let present = try manager.contentsOfDirectory(atPath: dataDirectory)
            .filter { !$0.hasPrefix(".wsx-restore-") && $0 != DataFolderLock.fileName }
        guard present.isEmpty || replacing else {
            throw BackupError("\(dataDirectory) is not empty: restore into an empty folder, or add --force to replace the data there (stop its server first)")
        }
        let staging = URL(fileURLWithPath: dataDirectory).appendingPathComponent(".wsx-restore-\(UUID().uuidString)", isDirectory: true)
        try DataFolder.createFolder(staging.path)
        defer { try? manager.removeItem(at: staging) }

        let reader = TarReader(handle: input)
        var unpacked: [String: BackupManifest.Entry] = [:]
        var manifestData: Data?
        do {
            while let member = try reader.next(into: { name in
                if name == BackupManifest.memberName { return nil }
                guard Self.isDataMember(name) else { throw BackupError("the archive holds \(name), which no wsx backup has") }
                guard unpacked[name] == nil else { throw BackupError("the archive holds \(name) twice") }
                let url = staging.appendingPathComponent(name)
                try DataFolder.createFolder(url.deletingLastPathComponent().path)
                return url
            }) {
                if member.name == BackupManifest.memberName {
                    manifestData = member.data
                } else {
                    unpacked[member.name] = .init(path: member.name, bytes: member.bytes, sha256: member.sha256)
                }
            }
        } catch let failure as TarArchive.Failure {
            throw BackupError("\(archive): \(failure)")
        }
        guard let manifestData, let manifest = try? BackupManifest.decoded(manifestData),
              manifest.format == BackupManifest.formatName else {
            throw BackupError("\(archive) has no manifest: it is not a wsx backup, or it was cut short")
        }
        for entry in manifest.entries where unpacked[entry.path] != entry {
            throw BackupError(unpacked[entry.path] == nil
                ? "\(entry.path) is missing from the archive" : "\(entry.path) does not match its checksum: the archive is damaged")
        }
        guard unpacked.count == manifest.entries.count else {
            throw BackupError("the archive holds files its manifest does not list")
        }
        guard unpacked[DataBackup.databaseMember] != nil else { throw BackupError("the archive holds no database") }
        // Stored bytes are named by their SHA-256: a file that is not what its name says is damage.
        for entry in manifest.entries where entry.path.hasPrefix("files/") && entry.sha256 != (entry.path as NSString).lastPathComponent {
            throw BackupError("\(entry.path) does not hold the bytes its name says")
        }

        if replacing {
            for item in Self.dataItems {
                let url = URL(fileURLWithPath: dataDirectory).appendingPathComponent(item)
                if manager.fileExists(atPath: url.path) { try manager.removeItem(at: url) }
            }
        }
        for item in try manager.contentsOfDirectory(atPath: staging.path) {
            try manager.renameReplacing(staging.appendingPathComponent(item).path,
                                        to: URL(fileURLWithPath: dataDirectory).appendingPathComponent(item).path)
        }
        try DataFolder.prepare(dataDirectory)
        return manifest
    }

    /// The names a backup's members may have: the database, a secret, a stored file or its thumbnail.
    static func isDataMember(_ name: String) -> Bool {
        if name == DataBackup.databaseMember || DataBackup.secretFiles.contains(name) { return true }
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[1].count == 2, parts[1].allSatisfy(\.isHexDigit) else { return false }
        let isHash = { (text: Substring) in text.count == 64 && text.allSatisfy { $0.isHexDigit && !$0.isUppercase } }
        switch parts[0] {
        case "files": return isHash(parts[2]) && parts[2].hasPrefix(parts[1])
        case "thumbs": return parts[2].hasSuffix(".jpg") && isHash(parts[2].dropLast(4)) && parts[2].hasPrefix(parts[1])
        default: return false
        }
    }
}
