import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import wsx_web

/// Reading is recorded by a POST only: opening a page (GET), asking whether it lives (HEAD) or a
/// browser prefetching it change no one's read marks and publish nothing.
@Suite("Reading is a POST", .timeLimit(.minutes(5)))
struct ReadingRecordsTests {
    /// The unread count the workspace's `/unread` answer gives room `id`.
    static func unread(_ browser: TestBrowser, _ wid: Int64, _ id: Int64) async throws -> Int {
        let text = try await browser.get("/w/\(wid)/unread", headers: [.accept: "application/json"]).text
        guard let range = text.range(of: #""\#(id)":"#) else { return 0 }
        return Int(text[range.upperBound...].prefix { $0.isNumber }) ?? -1
    }

    @Test("HEAD and a prefetch of a channel leave its unread count alone; the page's read POST clears it")
    func headAndPrefetchReadNothing() async throws {
        try await TestApp().run { app in
            let (owner, mate, wid, cid) = try await NotifyLevelTests.team(app)
            for text in ["하나", "둘", "셋"] { try await owner.post("/w/\(wid)/c/\(cid)/messages", [("content", text)]) }
            #expect(try await Self.unread(mate, wid, cid) == 3)
            let eventsBefore = try await app.settledEventId()

            #expect(try await mate.send("/w/\(wid)/c/\(cid)", method: .head, headers: [:], body: nil).status == .ok)
            #expect(try await mate.send("/w/\(wid)/c/\(cid)", method: .head, headers: [:], body: nil).status == .ok)
            let prefetched = try await mate.get("/w/\(wid)/c/\(cid)", headers: [HTTPField.Name("Sec-Purpose")!: "prefetch;prerender"])
            #expect(prefetched.status == .ok)
            // A plain GET shows the messages and the way to read them, and records nothing either.
            let page = try await mate.get("/w/\(wid)/c/\(cid)").text
            #expect(page.contains(#"id="unread-line""#))
            #expect(try await Self.unread(mate, wid, cid) == 3)
            #expect(try await app.settledEventId() == eventsBefore)

            // The no-script form (the same POST the script sends once the messages are in view).
            let form = try #require(TestBrowser.markReadForm(page))
            #expect(form.action == "/w/\(wid)/c/\(cid)/read")
            let answer = try await mate.post(form.action, [("message_id", form.upTo)])
            #expect(answer.status == .seeOther)
            #expect(try await Self.unread(mate, wid, cid) == 0)
            #expect(try await app.settledEventId() > eventsBefore)
            // Nothing unread: no form.
            #expect(TestBrowser.markReadForm(try await mate.get("/w/\(wid)/c/\(cid)").text) == nil)
        }
    }

    @Test("a prefetch is not a view: the last room stays where the person was")
    func prefetchIsNotAView() async throws {
        try await TestApp().run { app in
            let (_, mate, wid, cid) = try await NotifyLevelTests.team(app)
            let general = Int64(try await app.count("SELECT id FROM rooms WHERE workspace_id = ? AND is_default = TRUE", [wid]))
            try await mate.get("/w/\(wid)/c/\(general)")
            try await mate.get("/w/\(wid)/c/\(cid)", headers: [HTTPField.Name("Sec-Purpose")!: "prefetch"])
            #expect(try await mate.get("/").location == "/w/\(wid)/c/\(general)")
        }
    }

    @Test("a followed thread's replies stay unread until the thread's read POST")
    func threadReadIsAPost() async throws {
        try await TestApp().run { app in
            let (owner, mate, wid, cid) = try await NotifyLevelTests.team(app)
            try await mate.post("/w/\(wid)/c/\(cid)/messages", [("content", "질문 있어요")])
            let rootId = Int64(try await app.count("SELECT MAX(id) FROM messages"))
            try await owner.post("/w/\(wid)/m/\(rootId)/replies", [("content", "답변 1")])
            try await owner.post("/w/\(wid)/m/\(rootId)/replies", [("content", "답변 2")])
            let home = { try await mate.get("/w/\(wid)").text }
            #expect(try await home().contains(#"data-threads-unread>2</span>"#))
            try await mate.send("/w/\(wid)/m/\(rootId)/thread", method: .head, headers: [:], body: nil)
            let page = try await mate.get("/w/\(wid)/m/\(rootId)/thread").text
            #expect(try await home().contains(#"data-threads-unread>2</span>"#))
            let form = try #require(TestBrowser.markReadForm(page))
            try await mate.post(form.action, [("message_id", form.upTo)])
            #expect(try await home().contains(#"data-threads-unread hidden>0</span>"#))
        }
    }
}
