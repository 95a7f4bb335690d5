import Foundation

/// What a backup holds, written last into the archive as `manifest.json`: every other member
/// with its size and SHA-256, when it was made and the database's applied migrations. Restore
/// checks every member against it before anything goes into place.
struct BackupManifest: Codable, Equatable {
    struct Entry: Codable, Equatable {
        let path: String
        let bytes: Int
        let sha256: String
    }

    static let memberName = "manifest.json"
    static let formatName = "wsx-backup"

    var format = BackupManifest.formatName
    var version = 1
    var created: Date
    var migrations: [String]
    var entries: [Entry]

    func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return try encoder.encode(self)
    }

    static func decoded(_ data: Data) throws -> BackupManifest {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(BackupManifest.self, from: data)
    }
}
