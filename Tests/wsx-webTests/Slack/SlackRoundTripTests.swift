import Foundation
import HTTPTypes
import HummingbirdTesting
import SlackFormat
import Testing
@testable import wsx_web

/// Importing the same export twice, exporting and importing back: nothing is ever doubled, the
/// export writes Slack's format with the ids the import read (and ids of its own, kept, for
/// what was written here), and private conversations leave only when asked, on the record.
@Suite("Slack round trip", .timeLimit(.minutes(5)))
struct SlackRoundTripTests {
    @Test("import, import again, export, import the export again: nothing doubled; into a new workspace: the same history")
    func roundTrip() async throws {
        let work = try SlackFixture.workFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let zip = try SlackFixture.zip(into: work)
        try await TestApp().run { app in
            let (mina, _) = try await SlackImportTests.accounts(app)
            let wid = try await SlackFixture.importAcme(app, zip).workspaceId
            let imported = try await SlackFixture.counts(app, workspace: wid)
            #expect(imported["messages"] == 23 && imported["replies"] == 3 && imported["reactions"] == 5)

            let again = try await SlackFixture.importAcme(app, zip)
            #expect(!again.isNew && again.messages + again.replies == 0 && again.alreadyThere == 23 && again.created == 0)
            #expect(try await SlackFixture.counts(app, workspace: wid) == imported)

            // Something written here after the import goes out with ids of its own.
            let general = Int64(try await app.count("SELECT id FROM rooms WHERE is_default = TRUE AND workspace_id = ?", [wid]))
            try await mina.get("/w/\(wid)/c/\(general)")
            #expect(try await mina.post("/w/\(wid)/c/\(general)/messages", [("content", "새 글: **wsx**에서 씀 @Bob")]).status == .seeOther)
            let withNative = try await SlackFixture.counts(app, workspace: wid)

            let exported = work.appendingPathComponent("acme.zip")
            let summary = try SlackFixture.exporter(app).run(.init(workspaceId: wid, includePrivate: true, destination: exported,
                                                                    baseURL: "https://chat.example.com"))
            #expect(summary.messages == 24 && summary.files == 1 && summary.privateChannels == 1 && summary.groups == 1 && summary.directs == 2)
            #expect(((try FileManager.default.attributesOfItem(atPath: exported.path)[.posixPermissions]) as? Int) == 0o600)

            // Slack's format, with the ids the import read.
            let archive = try SlackArchiveReader(url: exported)
            let users = try archive.users()
            #expect(Set(users.map(\.id)).isSuperset(of: ["U01MINA", "U02BOB", "U03JIHO", "U04GONE", "U05SUJIN"]))
            #expect(users.first { $0.id == "U04GONE" }?.isDeleted == true && users.first { $0.id == "U02BOB" }?.isDeleted == false)
            let channels = try #require(try archive.decode("channels.json", as: [SlackConversation].self))
            #expect(channels.first { $0.id == "C01GENERAL" }?.isGeneral == true)
            #expect(Set(channels.compactMap(\.name)) == ["general", "개발", "random"])
            #expect(try archive.decode("groups.json", as: [SlackConversation].self)?.map(\.id) == ["G01SECRET"])
            #expect(Set(try archive.decode("dms.json", as: [SlackConversation].self)?.map(\.id) ?? []) == ["D01MINABOB", "D02MINAGONE"])
            let messages = try archive.messages(of: "general")
            let first = try #require(messages.first)
            #expect(first.ts == "1709512212.418929" && first.user == "U01MINA" && first.text == "안녕하세요 여러분! *환영합니다* 👋")
            #expect(first.pinnedTo == ["C01GENERAL"])
            let root = try #require(messages.first { $0.ts == "1709514165.129839" })
            #expect(root.replyCount == 2 && root.threadTs == root.ts)
            #expect(root.text == "Release checklist for <!here>: see <https://example.com/wiki/release|the wiki> and <#C02DEV|개발>")
            #expect(Set(root.reactions?.map(\.name) ?? []) == ["thumbsup", "tada"])
            #expect(messages.first { $0.ts == "1709514303.771219" }?.text == "<@U02BOB> 확인했어요 ~잠깐만~")
            #expect(messages.first { $0.ts == "1709514451.402659" }?.subtype == "thread_broadcast")
            #expect(messages.contains { $0.subtype == "tombstone" })
            let native = try #require(messages.last)
            #expect(native.text == "새 글: *wsx*에서 씀 <@U02BOB>" && native.user == "U01MINA")
            let photo = try #require(messages.first { $0.files?.first?.name == "whiteboard.jpg" }?.files?.first)
            #expect(photo.id == "F02PHOTO" && photo.mimetype == "image/jpeg")
            #expect(try archive.upload(fileId: "F02PHOTO") == Fixture.data("photo.jpg"))

            // Back into the same workspace: nothing doubled, the message written here included.
            let back = try await SlackFixture.importAcme(app, exported)
            #expect(back.messages + back.replies == 0 && back.alreadyThere == 24)
            #expect(try await SlackFixture.counts(app, workspace: wid) == withNative)

            // Into a new workspace: the same history.
            let copy = try await SlackFixture.importAcme(app, exported, workspace: "Acme copy")
            #expect(copy.isNew && copy.messages + copy.replies == 24 && copy.filesKept == 1)
            var expected = withNative, moved = try await SlackFixture.counts(app, workspace: copy.workspaceId)
            expected["users"] = nil
            moved["users"] = nil
            #expect(moved == expected)
            #expect(try await app.count("SELECT COUNT(*) FROM audit_log WHERE workspace_id = ? AND action = 'workspace.export'", [wid]) == 1)
        }
    }

    @Test("an export holds public channels only, unless asked for private ones; the audit log says which")
    func privateOnlyWhenAsked() async throws {
        let work = try SlackFixture.workFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let zip = try SlackFixture.zip(into: work)
        try await TestApp().run { app in
            _ = try await SlackImportTests.accounts(app)
            let wid = try await SlackFixture.importAcme(app, zip).workspaceId
            let exported = work.appendingPathComponent("public.zip")
            let summary = try SlackFixture.exporter(app).run(.init(workspaceId: wid, includePrivate: false, destination: exported,
                                                                    baseURL: "https://chat.example.com"))
            #expect(summary.channels == 3 && summary.privateChannels == 0 && summary.directs == 0)
            let archive = try SlackArchiveReader(url: exported)
            #expect(!archive.has("groups.json") && !archive.has("dms.json") && !archive.has("mpims.json"))
            #expect(archive.dayFiles(of: "leadership").isEmpty && archive.dayFiles(of: "D01MINABOB").isEmpty)
            #expect(try archive.users().contains { $0.profile?.email == "sujin@example.com" })
            let details = try app.database.query { tx in
                try tx.inspection.rows("SELECT detail FROM audit_log WHERE action = 'workspace.export'", [])
            }.map { $0[0] }
            #expect(details == ["public channels"])
        }
    }
}
