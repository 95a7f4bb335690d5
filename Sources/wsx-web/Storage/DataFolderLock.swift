import Foundation
import Uploads
#if canImport(Glibc)
import Glibc
#endif

/// One server per data folder: `wsx.lock` in the folder, held exclusively (`flock`) by the server
/// for its whole life and by `restore` while it replaces the data. A second `serve`, or a
/// `restore` beside a running server (which would keep writing to a database file restore had
/// deleted, and lose every post after it), is refused with the holder's process id.
///
/// `flock` locks belong to the open file and the kernel drops them when the holder exits, even by
/// `kill -9`, so a stale `wsx.lock` left by a dead server never blocks anyone. Commands that
/// work beside a running server (`backup`, `import`, `coins`, `user`) never take it.
final class DataFolderLock: Sendable {
    static let fileName = "wsx.lock"

    private let descriptor: Int32
    let path: String
    /// Whether this process made the file (the folder had none).
    let created: Bool

    private init(descriptor: Int32, path: String, created: Bool) {
        self.descriptor = descriptor
        self.path = path
        self.created = created
    }

    static func path(in dataDirectory: String) -> String {
        URL(fileURLWithPath: dataDirectory).appendingPathComponent(fileName).path
    }

    /// Takes the folder's lock and writes this process's id into it; throws `Held` naming the
    /// process that has it.
    static func acquire(dataDirectory: String) throws -> DataFolderLock {
        let path = path(in: dataDirectory)
        var created = true
        var descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, DataFolder.fileMode)
        if descriptor < 0, errno == EEXIST {
            created = false
            descriptor = open(path, O_RDWR | O_CLOEXEC)
        }
        guard descriptor >= 0 else {
            throw Held(dataDirectory: dataDirectory, holder: nil, reason: String(cString: strerror(errno)))
        }
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            if errno == EINTR { continue }
            let holder = holderProcess(descriptor)
            close(descriptor)
            throw Held(dataDirectory: dataDirectory, holder: holder, reason: nil)
        }
        let text = Array("\(getpid())\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = pwrite(descriptor, text, text.count, 0)
        return DataFolderLock(descriptor: descriptor, path: path, created: created)
    }

    /// Removes the file again when this process made it, still holding the lock (a restore that
    /// was refused leaves the folder as it found it).
    func removeIfCreated() {
        if created { unlink(path) }
    }

    /// The process id the holder wrote into the file.
    private static func holderProcess(_ descriptor: Int32) -> Int32? {
        var bytes = [UInt8](repeating: 0, count: 32)
        let count = pread(descriptor, &bytes, bytes.count, 0)
        guard count > 0 else { return nil }
        return Int32(String(decoding: bytes.prefix(count), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    deinit {
        close(descriptor)
    }

    /// The folder is in use by another process.
    struct Held: Error, CustomStringConvertible {
        let dataDirectory: String
        let holder: Int32?
        let reason: String?

        var description: String {
            if let reason { return "cannot lock \(dataDirectory)/\(DataFolderLock.fileName): \(reason)" }
            let who = holder.map { "wsx-web (process \($0))" } ?? "another wsx-web"
            return "\(who) is using the data folder \(dataDirectory): stop it first"
        }
    }
}
