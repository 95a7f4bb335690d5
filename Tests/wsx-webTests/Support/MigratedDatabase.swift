import Foundation
import Uploads
@testable import wsx_web

/// An empty SQLite database with every migration applied, made once per test run: each test
/// server on SQLite starts from a copy instead of migrating its own (hundreds of servers
/// migrating at once kept the run's two cores busy for minutes).
struct MigratedDatabase: Sendable {
    let file: String

    /// The run's one template.
    static let shared = Result { try MigratedDatabase() }

    private init() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wsx-migrated-\(UUID().uuidString)").path
        // Opened (migrated) and let go, so that nothing writes to it any more.
        do { _ = try AppDatabase.open(dataDirectory: folder) }
        file = AppDatabase.path(inDataDirectory: folder)
    }

    /// Puts a copy in `dataDirectory`, unless a test put a database there itself.
    func copy(into dataDirectory: String) throws {
        try DataFolder.prepare(dataDirectory)
        let target = AppDatabase.path(inDataDirectory: dataDirectory)
        guard !FileManager.default.fileExists(atPath: target) else { return }
        // The WAL too, should the template still be open: SQLite replays it on opening.
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: file + suffix) {
            try FileManager.default.copyItem(atPath: file + suffix, toPath: target + suffix)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: target + suffix)
        }
    }
}
