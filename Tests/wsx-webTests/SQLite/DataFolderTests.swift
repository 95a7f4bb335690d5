import ArgumentParser
import Foundation
import GRDB
import Testing
@testable import wsx_web

/// SQLite's own: the writer's PRAGMAs and the migrations table of the embedded database.
/// What the data folder promises: `--sync` set on the writer itself, one server per folder (a
/// second server and a restore beside it refused, the running server's data untouched), and a
/// database a newer binary migrated refused by an older one.
@Suite("The data folder", .serialized, .timeLimit(.minutes(5)))
struct DataFolderTests {
    @Test("--sync full reads back as synchronous = 2 on the writer, normal as 1, on the server's own database")
    func synchronousOnTheWriter() async throws {
        for (sync, expected) in [(DatabaseSync.full, 2), (.normal, 1)] {
            try await TestApp.sqlite { $0.synchronous = sync }.run { app in
                let setting = try app.database.synchronousSetting()
                #expect(setting == expected, "--sync \(sync.rawValue)")
            }
        }
        let config = try ServeCommand.parse(["--sync", "full"]).resolvedConfig(environment: .init(values: [:]))
        #expect(config.synchronous == .full)
    }

    @Test("beside a running server a second serve and restore --force refuse, naming its process; backup works; its data stays",
          .timeLimit(.minutes(3)))
    func oneServerPerFolder() async throws {
        let folder = try makeEmptyFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let binary = WSXBinary(path: WSXBinary.builtPath)
        try binary.createAccount(email: "owner@example.com", password: "folder password", in: folder)
        let server = try binary.serveLogged(["--data-dir", "data", "--bcrypt-cost", "4"], in: folder)
        defer { server.stop() }
        let pid = server.process.processIdentifier
        let lock = try String(contentsOfFile: folder.appendingPathComponent("data/wsx.lock").path, encoding: .utf8)
        #expect(lock.trimmingCharacters(in: .whitespacesAndNewlines) == "\(pid)")
        let cookie = try await signIn(base: server.base, email: "owner@example.com", password: "folder password")

        let second = try binary.run(["serve", "--port", "0", "--data-dir", "data"], in: folder)
        #expect(second.status != 0)
        #expect(second.stderr.contains("wsx-web (process \(pid)) is using the data folder data: stop it first"), "\(second.stderr)")

        let backup = try binary.run(["backup", "--data-dir", "data", "--to", "copy.tar"], in: folder)
        #expect(backup.status == 0, "\(backup.stderr)")
        let databaseFile = folder.appendingPathComponent("data/wsx.sqlite").path
        let inodeBefore = try FileManager.default.attributesOfItem(atPath: databaseFile)[.systemFileNumber] as? UInt64
        for force in [true, false] {
            let restore = try binary.run(["restore", "--from", "copy.tar", "--data-dir", "data"] + (force ? ["--force"] : []), in: folder)
            #expect(restore.status != 0)
            #expect(restore.stderr.contains("wsx-web (process \(pid)) is using the data folder data"), "\(restore.stderr)")
        }
        // The database file the server writes to is the one it opened, and it still answers.
        #expect(try FileManager.default.attributesOfItem(atPath: databaseFile)[.systemFileNumber] as? UInt64 == inodeBefore)
        #expect(try await FullDiskTests.send(server.base, "/profile", cookie: cookie).status == 200)
        #expect(server.process.isRunning)

        // Once it stops, the folder is free: restore --force goes ahead, and a new server starts.
        server.stop()
        let restored = try binary.run(["restore", "--from", "copy.tar", "--data-dir", "data", "--force"], in: folder)
        #expect(restored.status == 0, "\(restored.stderr)")
        let again = try binary.serveLogged(["--data-dir", "data", "--bcrypt-cost", "4"], in: folder)
        defer { again.stop() }
        _ = try await signIn(base: again.base, email: "owner@example.com", password: "folder password")
    }

    @Test("a restore in this process beside the in-process server is refused before anything moves")
    func restoreBesideInProcessServer() async throws {
        let work = try makeEmptyFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        try await TestApp.sqlite().run { app in
            let data = app.services.config.dataDirectory
            let archive = work.appendingPathComponent("copy.tar").path
            _ = try DataBackup(dataDirectory: data, clock: .system).write(to: archive)
            #expect(throws: DataFolderLock.Held.self) {
                try DataRestore(archive: archive, dataDirectory: data, replacing: true).run()
            }
            #expect(FileManager.default.fileExists(atPath: AppDatabase.path(inDataDirectory: data)))
            #expect(try app.database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM grdb_migrations") } ?? 0 > 0)
        }
    }

    @Test("a database with a migration this binary does not know is refused, naming it; migrate says the same")
    func downgradeGuard() throws {
        let folder = try makeEmptyFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = folder.appendingPathComponent("data").path
        let database = try AppDatabase.open(dataDirectory: data)
        try database.writeBlocking { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('999-from-the-future')")
        }
        #expect {
            _ = try AppDatabase.open(dataDirectory: data)
        } throws: { error in
            (error as? NewerDatabase)?.unknownMigrations == ["999-from-the-future"]
        }
        let migrate = try WSXBinary(path: WSXBinary.builtPath).run(["migrate", "--data-dir", "data"], in: folder)
        #expect(migrate.status != 0)
        #expect(migrate.stderr.contains("updated by a newer wsx-web (migrations this one does not know: 999-from-the-future)"),
                "\(migrate.stderr)")
        #expect(!migrate.stdout.contains("up to date"))
    }
}
