import Foundation
import Uploads

/// `wsx-web backup`: a consistent copy of a data folder, taken while the server runs.
///
/// The database is copied with `VACUUM INTO` on a connection of its own, which reads one
/// snapshot (every post committed before it began, none half-written) without stopping the
/// server's writer (`snapshot`, SQLite's way, in `Storage/SQLite/SQLiteBackup.swift`); then the
/// files that snapshot refers to, their thumbnails and the folder's secrets go in, and a manifest
/// with every member's checksum goes last. File garbage collection waits (`BackupLock`) from
/// before the snapshot until the archive is complete. The archive is written 0600 under a
/// temporary name and renamed into place when whole: it holds password hashes, sessions and
/// secrets.
struct DataBackup {
    let dataDirectory: String
    let clock: WallClock

    /// What was written.
    struct Summary {
        let manifest: BackupManifest
        var bytes: Int { manifest.entries.reduce(0) { $0 + $1.bytes } }
    }

    /// The secrets the server keeps beside its database, copied when present.
    static let secretFiles = ["server-key", "sandbox-secret"]
    static let databaseMember = "wsx.sqlite"

    func write(to archive: String) throws -> Summary {
        let databasePath = AppDatabase.path(inDataDirectory: dataDirectory)
        guard FileManager.default.fileExists(atPath: databasePath) else {
            throw BackupError("no database at \(databasePath): is --data-dir the server's data folder?")
        }
        let lock = try BackupLock.forBackup(in: dataDirectory)
        let workFolder = URL(fileURLWithPath: archive).deletingLastPathComponent()
            .appendingPathComponent(".wsx-backup-\(UUID().uuidString)", isDirectory: true)
        try DataFolder.createFolder(workFolder.path)
        defer { try? FileManager.default.removeItem(at: workFolder) }

        let snapshot = workFolder.appendingPathComponent(Self.databaseMember)
        let (migrations, hashes) = try Self.snapshot(databasePath, into: snapshot.path)
        let store = try FileStore(dataDirectory: dataDirectory)

        let partial = archive + ".partial-\(UUID().uuidString)"
        guard DataFolder.createFile(partial), let handle = FileHandle(forWritingAtPath: partial) else {
            throw BackupError("cannot create \(partial)")
        }
        var finished = false
        defer {
            try? handle.close()
            if !finished { try? FileManager.default.removeItem(atPath: partial) }
        }
        let now = clock.now()
        let writer = TarWriter(handle: handle, modified: now)
        var entries: [BackupManifest.Entry] = []
        func add(_ member: String, _ source: URL) throws {
            let (bytes, sha256) = try writer.add(member, file: source)
            entries.append(.init(path: member, bytes: bytes, sha256: sha256))
        }
        try add(Self.databaseMember, snapshot)
        for name in Self.secretFiles {
            let url = URL(fileURLWithPath: dataDirectory).appendingPathComponent(name)
            if FileManager.default.fileExists(atPath: url.path) { try add(name, url) }
        }
        for hash in hashes.sorted() {
            let original = store.original(hash)
            guard FileManager.default.fileExists(atPath: original.path) else {
                throw BackupError("the database refers to a file that is not in the data folder: \(original.path)")
            }
            try add(Self.member(original, under: store.root), original)
            let thumbnail = store.thumbnail(hash)
            if FileManager.default.fileExists(atPath: thumbnail.path) { try add(Self.member(thumbnail, under: store.root), thumbnail) }
        }
        let manifest = BackupManifest(created: now, migrations: migrations, entries: entries)
        try writer.add(BackupManifest.memberName, data: try manifest.encoded())
        try writer.finish()
        try handle.synchronize()
        try FileManager.default.renameReplacing(partial, to: archive)
        finished = true
        lock.release()
        return Summary(manifest: manifest)
    }

    /// A stored file's name in the archive: its path under the data folder (`files/ab/ab…`).
    static func member(_ url: URL, under root: URL) -> String {
        String(url.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1))
    }
}

/// A backup or restore that cannot go on, with what to do about it.
struct BackupError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension FileManager {
    /// Renames `source` to `target`, replacing what is there in one step.
    func renameReplacing(_ source: String, to target: String) throws {
        guard rename(source, target) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }
}
