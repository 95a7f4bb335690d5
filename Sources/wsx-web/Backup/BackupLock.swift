import Foundation

/// The lock that keeps file garbage collection from deleting what a running backup is copying:
/// `backup.lock` in the data folder, held exclusively (`flock`) by `wsx-web backup` from before
/// its database snapshot until the last file is in the archive, and shared by the server's
/// collector while it deletes. A collector that finds a backup running deletes nothing (the next
/// sweep does), so every file the snapshot refers to is still there to copy.
///
/// `flock` locks belong to the open file: separate processes and separate opens in one process
/// exclude each other alike, and the kernel lets go when the holder exits, even by `kill -9`.
final class BackupLock {
    private var descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    static func path(in dataDirectory: String) -> String {
        URL(fileURLWithPath: dataDirectory).appendingPathComponent("backup.lock").path
    }

    /// Held by a backup: waits until no collector is deleting, then keeps them all waiting.
    static func forBackup(in dataDirectory: String) throws -> BackupLock {
        let descriptor = try open(dataDirectory)
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                close(descriptor)
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
        }
        return BackupLock(descriptor: descriptor)
    }

    /// Held by a collector while it deletes; nil while a backup is running.
    static func forDeleting(in dataDirectory: String) -> BackupLock? {
        guard let descriptor = try? open(dataDirectory) else { return nil }
        guard flock(descriptor, LOCK_SH | LOCK_NB) == 0 else {
            close(descriptor)
            return nil
        }
        return BackupLock(descriptor: descriptor)
    }

    private static func open(_ dataDirectory: String) throws -> Int32 {
        let descriptor = Glibc.open(path(in: dataDirectory), O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        return descriptor
    }

    /// Lets go (also done when the lock is dropped).
    func release() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
    }

    deinit {
        release()
    }
}
