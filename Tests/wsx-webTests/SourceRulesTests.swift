import Foundation
import Testing

/// Rules of the code base that the compiler cannot check.
@Suite("Source rules")
struct SourceRulesTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources/wsx-web")

    @Test("reads go through AppDatabase.read: GRDB's async read must never mix with it (deadlock)")
    func readsGoThroughAppDatabase() throws {
        let files = try #require(FileManager.default.enumerator(at: Self.sources, includingPropertiesForKeys: nil))
        var offenders: [String] = []
        for case let file as URL in files where file.pathExtension == "swift" {
            let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            for (number, line) in lines.enumerated() where (line.contains("writer.read") || line.contains("asyncRead"))
                && !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                let allowed = file.lastPathComponent == "AppDatabase.swift" && line.contains("try writer.read(block)")
                if !allowed { offenders.append("\(file.lastPathComponent):\(number + 1)") }
            }
        }
        #expect(offenders.isEmpty, "use database.read instead: \(offenders)")
    }
}
