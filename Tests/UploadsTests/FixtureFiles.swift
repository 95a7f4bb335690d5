import Foundation

/// The committed fixture files in `Tests/Fixtures` (real images, a PDF, a zip, and hostile ones).
enum FixtureFiles {
    static var folder: URL {
        var url = URL(fileURLWithPath: #filePath)
        url.deleteLastPathComponent()
        url.deleteLastPathComponent()
        return url.appendingPathComponent("Fixtures")
    }

    static func url(_ name: String) -> URL { folder.appendingPathComponent(name) }
    static func data(_ name: String) -> Data { (try? Data(contentsOf: url(name))) ?? Data() }

    static func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("wsx-uploads-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
