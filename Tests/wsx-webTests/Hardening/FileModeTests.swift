import CoreFoundation
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import Uploads
@testable import wsx_web
#if canImport(Glibc)
import Glibc  // stat(): file modes
#endif

/// Class: files readable by others. The data folder holds password hashes, sessions, secrets
/// and uploads: it is 0700 and everything in it 0600, whoever creates it (the server, SQLite,
/// libvips, the operator's commands), and a folder left by an older version is fixed at start.
@Suite("File modes of the data folder", .timeLimit(.minutes(5)))
struct FileModeTests {
    /// Paths under `root` (relative) whose mode lets anyone but the owner in, with that mode.
    static func open(_ root: String) -> [String] {
        // The item's own mode (a link's, not its target's), as lstat(2) tells it.
        func mode(_ path: String) -> Int? {
            (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
        }
        var found: [String] = []
        if let mode = mode(root), mode & 0o077 != 0 { found.append(". \(String(mode & 0o777, radix: 8))") }
        let walker = FileManager.default.enumerator(atPath: root)
        while let relative = walker?.nextObject() as? String {
            if let mode = mode((root as NSString).appendingPathComponent(relative)), mode & 0o077 != 0 {
                found.append("\(relative) \(String(mode & 0o777, radix: 8))")
            }
        }
        return found.sorted()
    }

    static func names(_ root: String) -> [String] {
        (FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? []).sorted()
    }

    @Test("the server's own files: database, WAL and shared memory, secrets, uploads, thumbnails, their folders")
    func serverFiles() async throws {
        // The SQLite file, its WAL and shared memory are among them.
        try await StoreTests.sandbox { $0.payments.sandboxSecret = nil }.onSQLite.run { app in
            let (a, _, path, _) = try await UploadTests.room(app)
            #expect(try await a.postMultipart(path + "/messages", [("content", "files")], files: [
                .init(filename: "사진.jpg", data: Fixture.data("photo.jpg")), .init(filename: "doc.pdf", data: Fixture.data("doc.pdf")),
            ]).status == .seeOther)
            let root = app.services.config.dataDirectory
            let present = Self.names(root)
            for expected in ["wsx.sqlite", "wsx.sqlite-wal", "wsx.sqlite-shm", "server-key", "sandbox-secret", "files", "thumbs", "tmp"] {
                #expect(present.contains(expected), "\(expected) missing")
            }
            #expect(present.contains { $0.hasPrefix("thumbs/") && $0.hasSuffix(".jpg") })
            #expect(present.filter { $0.hasPrefix("files/") }.count >= 3)
            #expect(Self.open(root) == [])
        }
    }

    @Test("a data folder an older version left readable is tightened at start")
    func olderFolderFixed() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("wsx-modes-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/files/ab", withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o755])
        chmod(root, 0o755)
        for file in ["sandbox-secret", "files/ab/abcdef", "notes.txt"] {
            FileManager.default.createFile(atPath: root + "/" + file, contents: Data("x".utf8), attributes: [.posixPermissions: 0o644])
        }
        #expect(Self.open(root).count == 6)   // the folder, two subfolders, three files
        _ = try AppDatabase.open(dataDirectory: root)
        #expect(Self.open(root) == [])
        #expect(DataFolder.createFile(root + "/new") && Self.open(root) == [])
    }

    @Test("the binary's commands and server leave nothing readable by others, whatever the caller's umask")
    func binary() async throws {
        let folder = try makeEmptyFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let binary = WSXBinary(path: WSXBinary.builtPath)
        let data = folder.appendingPathComponent("data").path
        #expect(try binary.run(["migrate", "--data-dir", "data"], in: folder).status == 0)
        #expect(try binary.run(["user", "create", "--data-dir", "data", "--email", "m@example.com", "--nickname", "M",
                                "--password", "modes password"], in: folder).status == 0)
        let server = try binary.serveLogged(["--data-dir", "data", "--bcrypt-cost", "4", "--payments", "sandbox"], in: folder)
        defer { server.stop() }
        _ = try await signIn(base: server.base, email: "m@example.com", password: "modes password")
        #expect(Self.names(data).contains("sandbox-secret"))
        #expect(Self.names(data).contains("wsx.sqlite-wal"))
        #expect(Self.open(data) == [])
        #expect(server.log.contains("payments run in the sandbox"))
    }
}
