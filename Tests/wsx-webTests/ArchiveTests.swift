import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import wsx_web

/// Archived channels: read-only (every write a 409 with a message, nothing written), out of
/// unread counts, listed apart, still readable and searchable, and brought back by their managers.
@Suite("Archived channels", .timeLimit(.minutes(5)))
struct ArchiveTests {
    /// Alice owns the workspace and a channel 기록 with Bob in it; Bob posted there, unread by Alice.
    static func setUp(_ app: TestSession) async throws -> (a: TestBrowser, b: TestBrowser, wid: Int64, cid: Int64, mid: Int64) {
        let (a, b, wid, _) = try await MessagingTests.team(app)
        let cid = try await a.createChannel(in: wid, "기록")
        try await b.get("/w/\(wid)/channels")
        try await b.post("/w/\(wid)/c/\(cid)/join")
        try await MessagingTests.say(a, "/w/\(wid)/c/\(cid)", "첫 회의록")
        try await MessagingTests.say(b, "/w/\(wid)/c/\(cid)", "두 번째 회의록")
        let mid = Int64(try await app.count("SELECT MAX(id) FROM messages"))
        try await a.get("/w/\(wid)")
        return (a, b, wid, cid, mid)
    }

    @Test("archiving asks first, then the channel is read-only: every write is refused with a message and nothing changes")
    func readOnly() async throws {
        try await TestApp().run { app in
            let (a, b, wid, cid, mid) = try await Self.setUp(app)
            let channel = "/w/\(wid)/c/\(cid)"
            #expect(try await app.count("SELECT unread_count FROM room_members WHERE room_id = ? AND user_id = 1", [cid]) == 1)
            try await a.get(channel + "/settings")
            let asked = try await a.post(channel + "/archive")
            #expect(asked.status == .ok)
            #expect(asked.text.contains("Archive #기록?"))
            #expect(try await app.count("SELECT COUNT(*) FROM rooms WHERE archived_at IS NOT NULL") == 0)
            #expect(try await a.post(channel + "/archive", [("confirm", "yes")]).status == .seeOther)
            // Read off for everyone: nothing can arrive to count.
            #expect(try await app.count("SELECT SUM(unread_count) FROM room_members WHERE room_id = ?", [cid]) == 0)

            let page = try await b.get(channel)
            #expect(page.text.contains(#"id="archived-notice""#))
            #expect(!page.text.contains(#"id="composer""#))
            #expect(!page.shown.contains("message-actions"))
            #expect(page.text.contains("두 번째 회의록"))
            #expect(page.text.contains(#"id="sidebar-archived""#) && page.text.contains(#"<span class="room-name" data-room-name="\#(cid)">기록</span></a></li>"#))
            #expect(try await b.get("/w/\(wid)/search?q=회의록").text.contains("두 번째"))

            let before = try await app.workspaceSnapshot()
            let messages = try await app.count("SELECT COUNT(*) FROM messages")
            let json: HTTPFields = [.accept: "application/json"]
            let writes: [(String, [(String, String)])] = [
                (channel + "/messages", [("content", "보관 후 글")]), ("/w/\(wid)/m/\(mid)/edit", [("content", "고침")]),
                ("/w/\(wid)/m/\(mid)/delete", [("confirm", "yes")]), ("/w/\(wid)/m/\(mid)/reactions", [("emoji", "👍")]),
                ("/w/\(wid)/m/\(mid)/pin", []),
            ]
            for (path, fields) in writes {
                let refused = try await b.post(path, fields, headers: json)
                #expect(refused.status == .conflict, "\(path)")
                #expect(refused.text.contains("archived"), "\(path)")
            }
            let form = try await b.post(channel + "/messages", [("content", "보관 후 글")])
            #expect(form.status == .conflict)
            #expect(form.text.contains("This channel is archived"))
            #expect(try await app.workspaceSnapshot() == before)
            #expect(try await app.count("SELECT COUNT(*) FROM messages") == messages)
            #expect(try await app.count("SELECT COUNT(*) FROM messages WHERE id = ? AND body = '두 번째 회의록'", [mid]) == 1)
        }
    }

    @Test("its managers bring it back, and it takes posts again; others may not archive; the default channel never")
    func bringBack() async throws {
        try await TestApp().run { app in
            let (a, b, wid, cid, _) = try await Self.setUp(app)
            let channel = "/w/\(wid)/c/\(cid)"
            try await b.get(channel + "/settings")
            #expect(try await b.post(channel + "/archive", [("confirm", "yes")]).status == .forbidden)
            try await a.get(channel + "/settings")
            try await a.post(channel + "/archive", [("confirm", "yes")])
            #expect(try await a.get(channel).text.contains(#"action="\#(channel)/unarchive""#))
            #expect(!(try await b.get(channel)).text.contains("/unarchive"))
            #expect(try await a.post(channel + "/unarchive").status == .seeOther)
            #expect(try await MessagingTests.say(b, channel, "다시 시작").status == .seeOther)
            let general = try await app.count("SELECT id FROM rooms WHERE workspace_id = ? AND is_default = TRUE", [wid])
            try await a.get("/w/\(wid)/c/\(general)/settings")
            #expect(try await a.post("/w/\(wid)/c/\(general)/archive", [("confirm", "yes")]).status == .conflict)
            #expect(try await app.count("SELECT COUNT(*) FROM audit_log WHERE action IN ('channel.archive', 'channel.unarchive')") == 2)
        }
    }
}
