import Foundation
import Uploads

/// A random secret kept in the data folder (the sandbox's webhook key, the device-cookie key):
/// made once, readable by the server's user only (0600), the same across restarts.
enum SecretFile {
    /// The secret in `name` under `dataDirectory`, made by `make` when missing (a random token
    /// unless told otherwise).
    static func load(_ name: String, in dataDirectory: String,
                     make: () -> Data = { Data(SecretToken.generate().utf8) }) throws -> Data {
        let path = URL(fileURLWithPath: dataDirectory).appendingPathComponent(name).path
        if let existing = FileManager.default.contents(atPath: path), !existing.isEmpty { return existing }
        let fresh = make()
        // Written under a temporary name with mode 0600 from the start, then renamed into place:
        // a reader never sees it half-written or readable by others.
        let temporary = path + ".new-\(UUID().uuidString)"
        guard DataFolder.createFile(temporary), let handle = FileHandle(forWritingAtPath: temporary) else {
            throw CocoaError(.fileWriteUnknown)
        }
        try handle.write(contentsOf: fresh)
        try handle.close()
        try FileManager.default.moveItem(atPath: temporary, toPath: path)
        return fresh
    }
}
