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

    @Test("routes, middleware and the app's wiring see services, never the database: no GRDB there")
    func noDatabaseAboveServices() throws {
        for folder in ["Controllers", "Middleware", "App"] {
            let files = try FileManager.default.contentsOfDirectory(at: Self.sources.appendingPathComponent(folder),
                                                                    includingPropertiesForKeys: nil)
                .filter { $0.pathExtension == "swift" }
            // A folder moved or renamed would pass with nothing read.
            #expect(files.count >= 5, "\(folder) has \(files.count) Swift files")
            let importing = try files.filter { file in
                try String(contentsOf: file, encoding: .utf8).split(separator: "\n").contains { $0.hasPrefix("import GRDB") }
            }
            #expect(importing.isEmpty, "\(folder) imports GRDB: \(importing.map(\.lastPathComponent))")
        }
    }

    @Test("SQL a second backend can take: ON CONFLICT clauses, never SQLite's INSERT OR; LIKE, never instr")
    func portableConflicts() throws {
        let migrations = try FileManager.default.contentsOfDirectory(atPath: Self.sources.appendingPathComponent("Storage").path)
            .filter { $0.hasPrefix("Migrations") }
        // The migrations are SQLite's own history; the rule would pass vacuously without them.
        #expect(migrations.count >= 5)
        let found = try Self.lines(in: Self.sources, ending: ".swift", matching: /INSERT OR (?:IGNORE|REPLACE)/,
                                   except: Set(migrations))
        #expect(found.isEmpty, "use INSERT … ON CONFLICT: \(found)")
        let instr = try Self.lines(in: Self.sources, ending: ".swift", matching: /instr\(/, except: Set(migrations))
        #expect(instr.isEmpty, "use LIKE with ContainsPattern: \(instr)")
        #expect(try Self.lines(in: Self.sources, ending: ".swift", matching: /ON CONFLICT/).count >= 15)
    }

    static let root = sources.deletingLastPathComponent().deletingLastPathComponent()

    /// Lines of the files under `folder` ending in `suffix` that match `pattern`, as "file:line".
    static func lines(in folder: URL, ending suffix: String, matching pattern: Regex<Substring>,
                      except skipped: Set<String> = []) throws -> [String] {
        let files = try #require(FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil))
        var found: [String] = []
        for case let file as URL in files where file.lastPathComponent.hasSuffix(suffix) && !skipped.contains(file.lastPathComponent) {
            let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            for (number, line) in lines.enumerated() where line.contains(pattern)
                && !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                found.append("\(file.lastPathComponent):\(number + 1)")
            }
        }
        return found
    }

    @Test("links come from Paths: no site path is spelled in the code, the templates or the scripts")
    func pathsAreSpelledOnce() throws {
        let sitePath = /["'`]\/(?:w|users|files|invite|reset|store|profile|login|signup|logout|workspaces|lang|sandbox-pay|events|healthz)\b/
        #expect(try Self.lines(in: Self.sources, ending: ".swift", matching: sitePath, except: ["Route.swift"]).isEmpty)
        #expect(try Self.lines(in: Self.root.appendingPathComponent("Sources/Views"), ending: ".swift", matching: sitePath).isEmpty)
        #expect(try Self.lines(in: Self.root.appendingPathComponent("Public"), ending: ".js", matching: sitePath).isEmpty)
        let literalLink = /(?:href|action|src)="\//
        #expect(try Self.lines(in: Self.root.appendingPathComponent("Templates"), ending: ".mustache", matching: literalLink).isEmpty)
    }
}
