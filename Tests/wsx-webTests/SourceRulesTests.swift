import Foundation
import Testing

/// Rules of the code base that the compiler cannot check.
@Suite("Source rules", .timeLimit(.minutes(5)))
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

    @Test("Storage/ owns the database: no file outside it imports GRDB, and the compiler holds the others to their imports")
    func onlyStorageSeesTheDatabase() throws {
        let files = try #require(FileManager.default.enumerator(at: Self.sources, includingPropertiesForKeys: nil))
        var outside = 0, inside = 0
        var importing: [String] = []
        for case let file as URL in files where file.pathExtension == "swift" {
            let inStorage = file.pathComponents.contains("Storage")
            if inStorage { inside += 1 } else { outside += 1 }
            let imports = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").contains {
                $0.hasPrefix("import GRDB") || $0.hasPrefix("@_exported import GRDB")
            }
            if imports, !inStorage { importing.append(file.lastPathComponent) }
        }
        // A folder moved or renamed would pass with nothing read.
        #expect(outside >= 150, "read \(outside) files outside Storage/")
        #expect(inside >= 40, "read \(inside) files in Storage/")
        #expect(importing.isEmpty, "only Storage/ imports GRDB: \(importing)")
        // Inside it, only the SQLite store (Storage/SQLite/) sees GRDB: the protocols, the record
        // types and the rest are every backend's common ground.
        let storage = Self.sources.appendingPathComponent("Storage")
        let seam = try #require(FileManager.default.enumerator(at: storage, includingPropertiesForKeys: nil))
            .compactMap { $0 as? URL }
            .filter { $0.pathExtension == "swift" && !$0.pathComponents.contains("SQLite") && !$0.pathComponents.contains("Postgres") }
        #expect(seam.count >= 20)
        let seamImporting = try seam.filter { file in
            try String(contentsOf: file, encoding: .utf8).split(separator: "\n").contains { $0.hasPrefix("import GRDB") }
        }
        #expect(seamImporting.isEmpty, "only Storage/SQLite/ imports GRDB: \(seamImporting.map(\.lastPathComponent))")
        // Likewise the PostgreSQL store is the one place that sees postgres-nio (commands reach it
        // through `PostgresConnector` and `PostgresSchema`).
        let everywhere = try #require(FileManager.default.enumerator(at: Self.sources, includingPropertiesForKeys: nil))
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
        let postgresOwn = everywhere.filter { $0.pathComponents.contains("Postgres") }
        #expect(postgresOwn.count >= 3, "read \(postgresOwn.count) files in Storage/Postgres/")
        let postgresElsewhere = try everywhere.filter { file in
            try !file.pathComponents.contains("Postgres")
                && String(contentsOf: file, encoding: .utf8).split(separator: "\n").contains { $0.hasPrefix("import PostgresNIO") }
        }
        #expect(postgresElsewhere.isEmpty, "only Storage/Postgres/ imports PostgresNIO: \(postgresElsewhere.map(\.lastPathComponent))")
        // Without member import visibility, a file that does not import GRDB could still call
        // GRDB's methods on a connection it was handed (`db.execute`): the setting makes that a
        // compile error.
        let package = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(package.contains(#"swiftSettings + [.enableUpcomingFeature("MemberImportVisibility")]"#))
    }

    @Test("the suites go through the stores: only the SQLite store's own tests (Tests/wsx-webTests/SQLite/) import GRDB")
    func testsGoThroughStores() throws {
        let tests = Self.root.appendingPathComponent("Tests/wsx-webTests")
        let files = try #require(FileManager.default.enumerator(at: tests, includingPropertiesForKeys: nil))
        var read = 0, sqliteOwn = 0
        var importing: [String] = []
        for case let file as URL in files where file.pathExtension == "swift" {
            read += 1
            if file.pathComponents.contains("SQLite") { sqliteOwn += 1; continue }
            if try String(contentsOf: file, encoding: .utf8).split(separator: "\n").contains(where: { $0.hasPrefix("import GRDB") }) {
                importing.append(file.lastPathComponent)
            }
        }
        #expect(read >= 80, "read \(read) test files")
        #expect(sqliteOwn >= 4, "read \(sqliteOwn) files in SQLite/")
        #expect(importing.isEmpty, "use the stores (tx.…) or app.count: \(importing)")
        let package = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(package.components(separatedBy: #"swiftSettings + [.enableUpcomingFeature("MemberImportVisibility")]"#).count == 3,
                "the server and its suite both see only the members of what they import")
        // What the suite asks of the data is SQL every backend takes.
        let sqliteOnly = #/sqlite_sequence|sqlite_master|\browid\b|json_extract|json_set|PRAGMA|datetime\(|strftime\(|INSERT OR|instr\(|\sMATCH\s/#
        var sqliteSQL: [String] = []
        for case let file as URL in try #require(FileManager.default.enumerator(at: tests, includingPropertiesForKeys: nil))
        where file.pathExtension == "swift" && !file.pathComponents.contains("SQLite") && file.lastPathComponent != "SourceRulesTests.swift" {
            let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            for (number, line) in lines.enumerated() where line.contains(sqliteOnly) { sqliteSQL.append("\(file.lastPathComponent):\(number + 1)") }
        }
        #expect(sqliteSQL.isEmpty, "SQLite-only SQL outside Tests/wsx-webTests/SQLite/: \(sqliteSQL)")
    }

    @Test("SQL a second backend can take: ON CONFLICT clauses, never SQLite's INSERT OR; LIKE, never instr")
    func portableConflicts() throws {
        let migrations = try FileManager.default.contentsOfDirectory(atPath: Self.sources.appendingPathComponent("Storage/SQLite").path)
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
