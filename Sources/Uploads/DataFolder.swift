import Foundation

/// Who may read the data folder: only the server's own user. It holds password hashes,
/// sessions, secrets and everyone's uploads, and was world-readable (`wsx.sqlite` and
/// `sandbox-secret` 0644 in a 0755 folder). Folders are 0700 and files 0600: created so
/// (`createFile`, `createFolder`, and a process umask of 077 for what libraries create, such as
/// SQLite's WAL and shared-memory files and libvips' thumbnails), and fixed at start in a
/// folder an older version made.
public enum DataFolder {
    public static let folderMode: mode_t = 0o700
    public static let fileMode: mode_t = 0o600

    /// Every file and folder the process creates from now on is its user's alone.
    public static func restrictNewFiles() {
        umask(0o077)
    }

    /// Makes `path` (0700) if missing, and tightens everything under it that others could read.
    /// Returns how many modes it changed.
    @discardableResult
    public static func prepare(_ path: String) throws -> Int {
        try createFolder(path)
        var changed = tighten(path, to: folderMode) ? 1 : 0
        guard let walker = FileManager.default.enumerator(atPath: path) else { return changed }
        while let relative = walker.nextObject() as? String {
            let full = (path as NSString).appendingPathComponent(relative)
            var info = stat()
            guard lstat(full, &info) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFDIR: if tighten(full, to: folderMode, current: info.st_mode) { changed += 1 }
            case S_IFREG: if tighten(full, to: fileMode, current: info.st_mode) { changed += 1 }
            default: break   // links and sockets are left alone
            }
        }
        return changed
    }

    /// A folder (and its missing parents) made 0700.
    public static func createFolder(_ path: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: Int(folderMode)])
    }

    /// A new empty file made 0600 from the start (never briefly readable by others).
    public static func createFile(_ path: String) -> Bool {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, fileMode)
        guard descriptor >= 0 else { return false }
        close(descriptor)
        return true
    }

    /// Waits until the file's bytes are on the disk (`fsync`): on a files folder that several
    /// nodes share, a file is renamed to its final name only once whole, so no node ever serves
    /// a half-written one after a crash.
    public static func flushToDisk(_ url: URL) throws {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: url.path]) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path]) }
    }

    /// Sets `mode` when the current one grants anyone but the owner anything.
    private static func tighten(_ path: String, to mode: mode_t, current: mode_t? = nil) -> Bool {
        var present = current ?? 0
        if current == nil {
            var info = stat()
            guard stat(path, &info) == 0 else { return false }
            present = info.st_mode
        }
        guard present & 0o077 != 0 else { return false }
        return chmod(path, mode) == 0
    }
}
