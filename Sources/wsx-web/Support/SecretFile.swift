import Foundation
import Uploads

/// A random secret kept in the data folder (the sandbox's webhook key, the device-cookie key):
/// made once, readable by the server's user only (0600), the same across restarts.
enum SecretFile {
    /// The secret in `name` under `dataDirectory`, made when missing.
    static func load(_ name: String, in dataDirectory: String) throws -> Data {
        let path = URL(fileURLWithPath: dataDirectory).appendingPathComponent(name).path
        if let existing = FileManager.default.contents(atPath: path), !existing.isEmpty { return existing }
        let fresh = Data(SecretToken.generate().utf8)
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
