import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOFoundationEssentialsCompat
import Testing
@testable import wsx_web

/// `wsx-web copy`: a team made on SQLite, moved to PostgreSQL with the binary, served from
/// there as it was.
@Suite("Copying a team from SQLite to PostgreSQL", .timeLimit(.minutes(5)))
struct TeamCopyTests {
    /// What the team on SQLite looked like, to hold the copy to.
    private struct Before: Sendable {
        let wid: Int64, cid: Int64
        let newestEvent: Int64
        let newestMessage: Int64
        let fileId: Int64
        let signature: String
        /// Every opaque id `/v1` names rows by, table by table.
        let publicIds: [[String]]
    }

    /// The opaque ids of accounts, workspaces, rooms and messages, in id order.
    private static func publicIds(_ app: TestSession) throws -> [[String]] {
        try app.database.query { tx in
            try PublicTable.allCases.flatMap { table in
                try tx.inspection.rows("SELECT id, public_id FROM \(table.rawValue) ORDER BY id", [])
            }
        }
    }

    @Test("copy: every id, the files, the secrets and the search index move; the copy is served from PostgreSQL; a second copy is refused")
    func copyTeam() async throws {
        let work = try makeEmptyFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let address = try await PostgresTestCluster.shared().database()
        let url = "postgres://\(address.user)@\(address.host):\(address.port)/\(address.database)"

        // The team copied from: SQLite's folder, whatever backend the suites run on.
        let before = try await TestApp.sqlite().run { app -> Before in
            let (owner, member, wid) = try await ChannelTests.team(app)
            let cid = try await owner.createChannel(in: wid, "공지", description: "알림")
            try await member.get("/w/\(wid)/channels")
            try await member.post("/w/\(wid)/c/\(cid)/join")
            for text in ["첫 소식입니다", "둘째 소식 @Member", "셋째"] { _ = try await MessagingTests.say(owner, "/w/\(wid)/c/\(cid)", text) }
            #expect(try await owner.postMultipart("/w/\(wid)/c/\(cid)/messages", [("content", "사진")], files: [
                .init(filename: "photo.jpg", data: Fixture.data("photo.jpg"), contentType: "image/jpeg"),
            ]).status == .seeOther)
            let file = try #require(try await UploadTests.storedFiles(app).first)
            let archive = work.appendingPathComponent("team.tar").path
            let backup = try await WSXBinary.runBeside(["backup", "--data-dir", app.services.config.dataDirectory, "--to", archive], in: work)
            #expect(backup.status == 0, "\(backup.output)")
            return Before(wid: wid, cid: cid, newestEvent: try await app.settledEventId(),
                          newestMessage: Int64(try await app.count("SELECT MAX(id) FROM messages")), fileId: file.id!,
                          signature: app.services.serverKey.code("invitation", "x"), publicIds: try Self.publicIds(app))
        }
        let restored = try await WSXBinary.runBeside(["restore", "--from", "team.tar", "--data-dir", "data"], in: work)
        #expect(restored.status == 0, "\(restored.output)")

        let copied = try await WSXBinary.runBeside(["copy", "--from", "data", "--to", url, "--files-dir", "files"], in: work)
        #expect(copied.status == 0, "\(copied.output)")
        #expect(copied.output.contains("files: 1 copied"), "\(copied.output)")
        #expect(copied.output.contains(/messages +4 rows +checksum [0-9a-f]{16}/), "\(copied.output)")
        #expect(copied.output.contains("secrets: server-key"), "\(copied.output)")

        var node = TestApp { $0.filesDirectory = work.appendingPathComponent("files").path }
        node.postgresAddress = address
        try await node.run(.live) { app in
            #expect(app.services.serverKey.code("invitation", "x") == before.signature, "links signed before the move still verify")
            #expect(try Self.publicIds(app) == before.publicIds, "the apps' ids are the same ids")
            let owner = app.browser()
            #expect(try await owner.logIn(email: "o@example.com", password: "correct horse").status == .seeOther)
            let page = try await owner.get("/w/\(before.wid)/c/\(before.cid)")
            #expect(page.status == .ok && page.text.contains("첫 소식입니다") && page.text.contains("셋째"), "the same room at the same address")
            // 소식, percent-encoded as a browser sends it.
            #expect(try await owner.get("/w/\(before.wid)/search?q=%EC%86%8C%EC%8B%9D").text.contains("첫 <mark>소식</mark>"), "Korean search works on the copy")
            let download = try await owner.get("/files/\(before.fileId)/photo.jpg?download=1")
            #expect(download.status == .ok && Data(buffer: download.body) == Fixture.data("photo.jpg"), "the file is served from --files-dir")

            // A browser that had read up to the event before the newest replays exactly the newest.
            let replayed = try await EventStreamClient.connect(port: app.client.port!, headers: RealtimeTests.headers(owner, lastEventId: String(before.newestEvent - 1))) { stream in
                _ = try await stream.readHead()
                return try await stream.next()
            }
            #expect(replayed?.id == String(before.newestEvent), "Last-Event-ID from before the move still places the stream")

            _ = try await MessagingTests.say(owner, "/w/\(before.wid)/c/\(before.cid)", "옮긴 뒤 첫 글")
            #expect(Int64(try await app.count("SELECT MAX(id) FROM messages")) == before.newestMessage + 1, "new rows take the next id")
            #expect(try await app.settledEventId() == before.newestEvent + 1, "and the next event id")
        }

        let again = try await WSXBinary.runBeside(["copy", "--from", "data", "--to", url], in: work)
        #expect(again.status != 0 && again.output.contains("already holds a team"), "\(again.output)")
    }

    @Test("tables are ordered by their foreign keys; a nullable key in a cycle waits; times read alike from every form")
    func orderAndTimes() throws {
        typealias Key = PostgresCopyTarget.ForeignKey
        typealias Column = PostgresCopyTarget.Column
        let columns: [String: [Column]] = [
            "users": [.init(name: "id", type: "int8", nullable: false), .init(name: "avatar_file_id", type: "int8", nullable: true)],
            "files": [.init(name: "id", type: "int8", nullable: false), .init(name: "uploader_id", type: "int8", nullable: false)],
            "messages": [.init(name: "id", type: "int8", nullable: false), .init(name: "author_id", type: "int8", nullable: true),
                         .init(name: "thread_root_id", type: "int8", nullable: true)],
        ]
        let keys = [Key(table: "users", column: "avatar_file_id", references: "files"), Key(table: "files", column: "uploader_id", references: "users"),
                    Key(table: "messages", column: "author_id", references: "users"), Key(table: "messages", column: "thread_root_id", references: "messages")]
        let (order, waiting) = try TeamCopy.order(["files", "messages", "users"], keys: keys, columns: columns)
        #expect(order == ["users", "files", "messages"])
        #expect(waiting == [keys[0]], "the avatar waits for the files; the not-null uploader does not")

        #expect(CopiedText.time("2026-11-22 07:05:09.123") == "2026-11-22 07:05:09.123")
        #expect(CopiedText.time("2026-11-22 07:05:09") == "2026-11-22 07:05:09.000")
        #expect(CopiedText.time("2026-11-22T07:05:09.5Z") == "2026-11-22 07:05:09.500")
        #expect(CopiedText.time("2026-11-22 07:05:09.123456") == "2026-11-22 07:05:09.123")
        #expect(CopiedText.time("yesterday") == nil)
        #expect(throws: CopyError.self) { try CopiedText.text(.text("x"), type: "int8", column: "t.c") }
    }
}
