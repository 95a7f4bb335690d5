import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import wsx_web

/// A post's fragment is drawn before the writer's turn with stand-in ids (`PostDraft`): what
/// readers get must be, byte for byte, what the stored message renders to.
@Suite("Posts drawn before their write", .timeLimit(.minutes(5)))
struct PostDraftTests {
    /// The fragment kept for the newest message right after its post, and a fresh render of the
    /// row as stored.
    private static func keptAndFresh(_ app: TestSession, workspace: Int64) async throws -> (kept: String?, fresh: String, row: MessageRow) {
        let id = Int64(try await app.count("SELECT MAX(id) FROM messages"))
        let row = try app.database.query { tx in try tx.messages.row(id: id, hasFiles: true) }
        let lists = app.services.messageLists
        let kept = lists.cache.kept(FragmentCache.Key(MessageStamp(row)))?.whole
        return (kept, lists.unkeptNeutral(row, workspaceId: workspace), row)
    }

    @Test("text, a mention and two files: the fragment kept at the post is the stored message's, real ids and all")
    func drawnMatchesStored() async throws {
        try await TestApp().run { app in
            let (a, _, wid, general) = try await MessagingTests.team(app)
            let path = "/w/\(wid)/c/\(general)"
            try await a.get(path)
            let response = try await a.postMultipart(path + "/messages", [("content", "@Bob 회의록과 사진 **확인**")], files: [
                .init(filename: "photo.jpg", data: Fixture.data("photo.jpg"), contentType: "image/jpeg"),
                .init(filename: "회의록.pdf", data: Fixture.data("doc.pdf"), contentType: "application/pdf"),
            ])
            #expect(response.status == .seeOther)
            let (kept, fresh, row) = try await Self.keptAndFresh(app, workspace: wid)
            #expect(row.attachments.count == 2)
            #expect(kept == fresh)
            #expect(fresh.contains("m-\(row.id)") || fresh.contains("\"\(row.id)\""))
            #expect(!fresh.contains(String(PostDraft.messageStandIn)))
            for file in row.attachments { #expect(fresh.contains(Paths.file(file.id!, file.originalName))) }
        }
    }

    @Test("a text that contains a stand-in is posted as written, rendered on the writer's turn")
    func standInInText() async throws {
        try await TestApp().run { app in
            let (a, _, wid, general) = try await MessagingTests.team(app)
            let path = "/w/\(wid)/c/\(general)"
            let text = "the number \(PostDraft.messageStandIn) stays"
            try await a.get(path)
            #expect(try await a.post(path + "/messages", [("content", text)]).status == .seeOther)
            let (kept, fresh, row) = try await Self.keptAndFresh(app, workspace: wid)
            #expect(row.body == text)
            #expect(kept == fresh)
            #expect(fresh.contains(String(PostDraft.messageStandIn)))
        }
    }
}
