import Foundation
import GRDB
import HTTPTypes
import HummingbirdTesting
import NIOFoundationEssentialsCompat
import Synchronization
import Testing
import Uploads
@testable import wsx_web

/// Backups taken while the server runs, and restores: every post acknowledged before the backup
/// began is in it with its files, the archive is its owner's alone, a restored folder serves the
/// same pages, and a damaged archive or a folder in use is refused with nothing half-written.
/// What the posters of a load test share: the ids acknowledged so far, and when to stop.
final class PostingLoad: Sendable {
    let acknowledged = Mutex<[Int64]>([])
    let stopped = Mutex(false)
}

/// The SQLite store's backup (`VACUUM INTO` and the files, one tar) and restore; PostgreSQL
/// deployments use `pg_dump` and the files folder instead.
@Suite("Backup and restore", .timeLimit(.minutes(5)))
struct BackupTests {
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("wsx-backup-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1
    }

    @Test("under posting load: every post acknowledged before the backup began is restored, with its picture; the archive is 0600")
    func underLoad() async throws {
        let work = try Self.folder()
        defer { try? FileManager.default.removeItem(at: work) }
        let archive = work.appendingPathComponent("wsx.tar").path
        let restored = work.appendingPathComponent("restored").path
        let (acknowledgedBefore, photoPath, lastBeforeBackup) = try await TestApp.sqlite().run(.live) { app -> (Set<Int64>, String, String) in
            let (a, b, wid, general) = try await MessagingTests.team(app)
            let path = "/w/\(wid)/c/\(general)"
            try await a.get(path)
            try await b.get(path)
            let photo = try await a.postMultipart(path + "/messages", [("content", "사진")],
                                                  files: [.init(filename: "사진.jpg", data: Fixture.data("photo.jpg"), contentType: "image/jpeg")])
            #expect(photo.status == .seeOther)
            let fileId = try await app.count("SELECT MAX(id) FROM files")
            let photoPath = Paths.file(Int64(fileId), "사진.jpg")

            let load = PostingLoad()
            let posting = Task {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for (writer, browser) in [("A", a), ("B", b)] {
                        group.addTask {
                            var index = 0
                            while !load.stopped.withLock({ $0 }) {
                                index += 1
                                let response = try await browser.post(path + "/messages", [("content", "\(writer)-\(index) 백업 중")],
                                                                      headers: [.accept: "application/json"])
                                guard response.status == .created,
                                      let id = (try JSONSerialization.jsonObject(with: Data(response.text.utf8)) as? [String: Any])?["id"] as? Int
                                else { continue }
                                load.acknowledged.withLock { $0.append(Int64(id)) }
                            }
                        }
                    }
                    try await group.waitForAll()
                }
            }
            // Let the load build up, note what was acknowledged, then back up while it goes on.
            while load.acknowledged.withLock({ $0.count }) < 40 { try await Task.sleep(for: .milliseconds(20)) }
            let before = Set(load.acknowledged.withLock { $0 })
            let lastBeforeBackup = try await app.services.database.read { db in
                try String.fetchOne(db, sql: "SELECT body FROM messages WHERE id = ?", arguments: [before.max()!])!
            }
            let dataDirectory = app.services.config.dataDirectory
            let summary = try await Task.detached {
                try DataBackup(dataDirectory: dataDirectory, clock: .system).write(to: archive)
            }.value
            // The posters were still at it when the backup ended: another post gets acknowledged.
            let atEnd = load.acknowledged.withLock { $0.count }
            while load.acknowledged.withLock({ $0.count }) == atEnd { try await Task.sleep(for: .milliseconds(20)) }
            load.stopped.withLock { $0 = true }
            try await posting.value
            #expect(summary.manifest.entries.contains { $0.path.hasPrefix("files/") })
            #expect(summary.manifest.entries.contains { $0.path.hasPrefix("thumbs/") })
            return (before, photoPath, lastBeforeBackup)
        }
        #expect(try Self.mode(archive) == 0o600)
        let manifest = try DataRestore(archive: archive, dataDirectory: restored, replacing: false).run()
        #expect(manifest.entries.map(\.path).contains("wsx.sqlite") && manifest.entries.map(\.path).contains("server-key"))
        let copy = try DatabaseQueue(path: AppDatabase.path(inDataDirectory: restored))
        let present = try await copy.read { db in Set(try Int64.fetchAll(db, sql: "SELECT id FROM messages")) }
        try copy.close()
        #expect(acknowledgedBefore.isSubset(of: present), "lost: \(acknowledgedBefore.subtracting(present).sorted())")
        #expect(try Self.mode(restored) == 0o700)
        #expect(try Self.mode(AppDatabase.path(inDataDirectory: restored)) == 0o600)

        // The restored folder serves the same pages: the same account signs in and reads the room and its picture.
        try await TestApp.sqlite { $0.dataDirectory = restored }.run { app in
            let a = app.browser()
            #expect(try await a.logIn(email: "a@example.com", password: "correct horse").status == .seeOther)
            let wid = try await app.count("SELECT id FROM workspaces")
            let general = try await app.count("SELECT id FROM rooms WHERE is_default = 1")
            let page = try await a.get("/w/\(wid)/c/\(general)")
            #expect(page.status == .ok && page.text.contains(lastBeforeBackup))
            let photo = try await a.get(photoPath)
            #expect(photo.status == .ok)
            #expect(Data(buffer: photo.body) == Fixture.data("photo.jpg"))
        }
    }

    @Test("restore refuses a damaged archive, a cut-short one and a folder with data in it; nothing lands half-written")
    func refusals() async throws {
        let work = try Self.folder()
        defer { try? FileManager.default.removeItem(at: work) }
        let archive = work.appendingPathComponent("wsx.tar").path
        try await TestApp.sqlite().run { app in
            let (a, _, wid, general) = try await MessagingTests.team(app)
            try await a.get("/w/\(wid)/c/\(general)")
            _ = try await a.postMultipart("/w/\(wid)/c/\(general)/messages", [("content", "문서")],
                                          files: [.init(filename: "doc.pdf", data: Fixture.data("doc.pdf"), contentType: "application/pdf")])
            _ = try DataBackup(dataDirectory: app.services.config.dataDirectory, clock: .system).write(to: archive)
        }
        let good = try Data(contentsOf: URL(fileURLWithPath: archive))
        func attempt(_ bytes: Data, into name: String, replacing: Bool = false) throws -> String? {
            let copy = work.appendingPathComponent("\(name).tar").path
            try bytes.write(to: URL(fileURLWithPath: copy))
            do {
                _ = try DataRestore(archive: copy, dataDirectory: work.appendingPathComponent(name).path, replacing: replacing).run()
                return nil
            } catch {
                return "\(error)"
            }
        }
        // One byte of the PDF changed.
        var damaged = good
        let pdfAt = try #require(good.range(of: Data("%PDF".utf8)))
        damaged[pdfAt.lowerBound + 5] ^= 0xFF
        #expect(try attempt(damaged, into: "damaged")?.contains("does not match its checksum") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: work.appendingPathComponent("damaged").path).isEmpty)
        // Cut off before its manifest.
        #expect(try attempt(good.prefix(good.count - 2048), into: "short") != nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: work.appendingPathComponent("short").path).isEmpty)
        // A folder that holds data already, unless told to replace it.
        #expect(try attempt(good, into: "used") == nil)
        #expect(try attempt(good, into: "used")?.contains("is not empty") == true)
        #expect(try attempt(good, into: "used", replacing: true) == nil)
    }

    @Test("file garbage collection waits while a backup holds its lock: the files stay until the next sweep")
    func collectionWaits() async throws {
        try await TestApp.sqlite().run { app in
            let (a, _, wid, general) = try await MessagingTests.team(app)
            let path = "/w/\(wid)/c/\(general)"
            try await a.get(path)
            _ = try await a.postMultipart(path + "/messages", [("content", "지울 사진")],
                                          files: [.init(filename: "p.png", data: Fixture.data("image.png"), contentType: "image/png")])
            let mid = try await app.count("SELECT MAX(id) FROM messages")
            let hash = try await app.services.database.read { db in try String.fetchOne(db, sql: "SELECT sha256 FROM files")! }
            let stored = app.services.files.store.original(hash).path
            let lock = try BackupLock.forBackup(in: app.services.config.dataDirectory)
            try await a.get(path)
            #expect(try await a.post("/w/\(wid)/m/\(mid)/delete", [("confirm", "yes")]).status == .seeOther)
            #expect(try await app.count("SELECT COUNT(*) FROM files") == 0)
            #expect(FileManager.default.fileExists(atPath: stored), "deleted while a backup was copying")
            lock.release()
            #expect(try await app.services.files.collectGarbage() == 1)
            #expect(!FileManager.default.fileExists(atPath: stored))
        }
    }

    @Test("the commands: `backup` writes a tar that tar lists, `restore` puts it back and refuses to do it twice")
    func commands() throws {
        let work = try Self.folder()
        defer { try? FileManager.default.removeItem(at: work) }
        let binary = WSXBinary(path: WSXBinary.builtPath)
        try binary.createAccount(email: "op@example.com", password: "operator password", in: work)
        let backup = try binary.run(["backup", "--data-dir", "data", "--to", "out.tar"], in: work)
        #expect(backup.status == 0, "\(backup.stderr)")
        #expect(backup.stdout.hasPrefix("backup written to out.tar:"))
        #expect(try Self.mode(work.appendingPathComponent("out.tar").path) == 0o600)
        let tar = try ChildProcess("/usr/bin/tar", ["-tf", "out.tar"], in: work, errors: .separate)
        #expect(tar.waitUntilExit() == 0)
        let names = tar.output
        #expect(names.split(separator: "\n").contains("wsx.sqlite") && names.split(separator: "\n").last == "manifest.json")
        let restore = try binary.run(["restore", "--from", "out.tar", "--data-dir", "copy"], in: work)
        #expect(restore.status == 0, "\(restore.stderr)")
        let again = try binary.run(["restore", "--from", "out.tar", "--data-dir", "copy"], in: work)
        #expect(again.status != 0 && again.stderr.contains("is not empty"))
        // The restored account is the same one.
        let user = try binary.run(["user", "reset-password", "--data-dir", "copy", "--email", "op@example.com"], in: work)
        #expect(user.status == 0, "\(user.stderr)")
    }
}
