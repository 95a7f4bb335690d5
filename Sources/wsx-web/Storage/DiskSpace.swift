import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The free space of the data folder's file system, against the room the server keeps for
/// itself (`--min-free-space`): below it `/healthz` says so and uploads are refused before a byte
/// is written, so the last megabytes stay for the database (a post, a session, a read marker).
struct DiskSpace: Sendable {
    let dataDirectory: String
    /// Free bytes below which the server reports itself unhealthy and takes no uploads.
    let minimumFreeBytes: Int

    /// Free bytes an unprivileged process may use there, or nil when the folder cannot be asked.
    func freeBytes() -> Int? {
        var info = statvfs()
        guard statvfs(dataDirectory, &info) == 0 else { return nil }
        return Int(clamping: UInt64(info.f_bavail) &* UInt64(info.f_frsize))
    }

    /// Whether `bytes` more can be written and still leave the minimum free.
    func hasRoom(for bytes: Int) -> Bool {
        guard let free = freeBytes() else { return true }
        return free - bytes >= minimumFreeBytes
    }

    /// `64 MB`, `512 KB`: sizes in the health answer.
    static func describe(_ bytes: Int) -> String {
        if bytes >= 1 << 30 { return String(format: "%.1f GB", Double(bytes) / Double(1 << 30)) }
        if bytes >= 1 << 20 { return "\(bytes >> 20) MB" }
        return "\(bytes >> 10) KB"
    }
}
