import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import wsx_web

/// Pins (for the whole room) and saved messages (each person's own): with and without a
/// script, what each viewer's page shows, the events, the views, and what deleting does.
@Suite("Pins and saved messages", .timeLimit(.minutes(5)))
struct PinTests {
    static func mark(_ browser: TestBrowser, _ wid: Int64, _ mid: Int64, _ action: String, json: Bool = false,
                     from referer: String? = nil) async throws -> TestResponse {
        var headers: HTTPFields = json ? [.accept: "application/json"] : [:]
        if let referer { headers[.referer] = "http://localhost" + referer }
        return try await browser.post("/w/\(wid)/m/\(mid)/\(action)", headers: headers)
    }

    /// A stored event: its room and user (nil when it has none) and payload.
    struct StoredEvent {
        let roomId: Int64?
        let userId: Int64?
        let payload: String
    }

    static func events(_ app: TestSession, _ type: String) async throws -> [StoredEvent] {
        try app.database.query { tx in
            try tx.inspection.rows("SELECT room_id, user_id, payload FROM events WHERE type = ? ORDER BY id", [type])
        }.map { StoredEvent(roomId: Int64($0[0]), userId: Int64($0[1]), payload: $0[2]) }
    }

    @Test("a pin is the room's: everyone sees it marked and counted in the header, listed on the room's pins page")
    func pinWithForms() async throws {
        try await TestApp().run { app in
            let (a, b, wid, path, mid) = try await ReactionTests.posted(app)
            try await b.get(path)
            #expect(!(try await b.get(path)).shown.contains(#"class="flag-pinned""#))
            let pinned = try await Self.mark(b, wid, mid, "pin")
            #expect(pinned.status == .seeOther)
            #expect(pinned.location == "\(path)?around=\(mid)#m-\(mid)")

            try await a.post("/lang", [("lang", "ko"), ("next", path)])
            let alice = try await a.get(path)
            #expect(alice.shown.contains(#"<p class="message-flags"><span class="flag-pinned">📌 고정됨</span></p>"#))
            #expect(alice.text.contains(#"<a class="pins-link" id="pins-link" href="\#(path)/pins" data-label="고정 {0}개">"#))
            #expect(alice.text.contains(#"<span class="pins-count">고정 1개</span>"#))
            let list = try await a.get(path + "/pins")
            #expect(list.status == .ok)
            #expect(list.text.contains(#"<ol class="collection-list" id="pin-list">"#))
            #expect(list.text.contains("회의는 3시입니다"))
            #expect(list.text.contains(#"action="/w/\#(wid)/m/\#(mid)/unpin""#))

            // Unpinned from the pins page, the form comes back to it, now empty.
            let unpinned = try await Self.mark(a, wid, mid, "unpin", from: path + "/pins")
            #expect(unpinned.location == path + "/pins")
            let empty = try await a.get(path + "/pins")
            #expect(empty.text.contains(#"id="pin-list-empty""#))
            #expect(try await b.get(path).text.contains(#"hidden><span aria-hidden="true">📌</span> <span class="pins-count"></span>"#))
            #expect(try await app.count("SELECT COUNT(*) FROM pins") == 0)
        }
    }

    @Test("pinning is one event to the room with the count; pinning again changes nothing; scripts get the same as JSON")
    func pinEvents() async throws {
        try await TestApp().run { app in
            let (a, b, wid, path, mid) = try await ReactionTests.posted(app)
            try await b.get(path)
            let general = Int64(path.split(separator: "/").last!)!
            let answer = try await Self.mark(b, wid, mid, "pin", json: true)
            let expected = #"{"count":1,"messageId":\#(mid),"pinned":true,"roomId":\#(general),"workspaceId":\#(wid)}"#
            #expect(answer.status == .ok)
            #expect(answer.text == expected)
            #expect(try await Self.mark(b, wid, mid, "pin", json: true).text == expected)
            let events = try await Self.events(app, "pins.changed")
            #expect(events.count == 1)
            #expect(events.first?.payload == expected)
            #expect(events.first?.roomId == general)

            // Deleting a pinned message takes its pin and tells the room the count went down.
            try await a.get(path)
            try await a.post("/w/\(wid)/m/\(mid)/delete", [("confirm", "yes")])
            #expect(try await app.count("SELECT COUNT(*) FROM pins") == 0)
            let after = try await Self.events(app, "pins.changed")
            #expect(after.count == 2)
            #expect(after.last?.payload == #"{"count":0,"messageId":\#(mid),"pinned":false,"roomId":\#(general),"workspaceId":\#(wid)}"#)
        }
    }

    @Test("a saved message is the saver's alone: marked on their page, in their Saved view, on their other tabs only")
    func savedIsPersonal() async throws {
        try await TestApp().run { app in
            let (a, b, wid, path, mid) = try await ReactionTests.posted(app)
            try await MessagingTests.say(a, path, "두 번째 메시지")
            let second = Int64(try await app.count("SELECT MAX(id) FROM messages"))
            try await b.get(path)
            #expect(try await Self.mark(b, wid, mid, "save").status == .seeOther)
            try await Self.mark(b, wid, second, "save")

            try await b.post("/lang", [("lang", "ko"), ("next", path)])
            let bob = try await b.get(path)
            #expect(bob.shown.contains(#"<span class="flag-saved">🔖 저장됨</span>"#))
            #expect(!(try await a.get(path)).shown.contains("flag-saved"))

            // The Saved view: the latest saved first, each with the way back and a form to unsave.
            let view = try await b.get("/w/\(wid)/saved")
            #expect(view.status == .ok)
            let first = try #require(view.text.range(of: "두 번째 메시지")), then = try #require(view.text.range(of: "회의는 3시입니다"))
            #expect(first.lowerBound < then.lowerBound)
            #expect(view.text.contains(#"href="\#(path)?around=\#(mid)#m-\#(mid)""#))
            #expect(view.text.contains(#"action="/w/\#(wid)/m/\#(mid)/unsave""#))
            #expect(!(try await a.get("/w/\(wid)/saved")).text.contains("회의는"))

            let bobId = try await app.userId("b@example.com")
            let events = try await Self.events(app, "saved.changed")
            #expect(events.count == 2)
            #expect(events.allSatisfy { $0.userId == bobId && $0.roomId == nil })

            // Unsaved from the Saved view, the form comes back to it.
            let removed = try await Self.mark(b, wid, mid, "unsave", from: "/w/\(wid)/saved")
            #expect(removed.location == "/w/\(wid)/saved")
            #expect(!(try await b.get("/w/\(wid)/saved")).text.contains("회의는"))
            #expect(try await app.count("SELECT COUNT(*) FROM saved_messages") == 1)
        }
    }

    @Test("the Saved view leaves out rooms the person has left; deleting a message takes it off every list")
    func savedFollowsAccess() async throws {
        try await TestApp().run { app in
            let (a, b, wid, _, _) = try await ReactionTests.posted(app)
            let cid = try await a.createChannel(in: wid, "비밀회의")
            let channel = "/w/\(wid)/c/\(cid)"
            try await b.get("/w/\(wid)/channels")
            try await b.post(channel + "/join")
            try await MessagingTests.say(a, channel, "채널 안의 이야기")
            let mid = Int64(try await app.count("SELECT MAX(id) FROM messages"))
            try await b.get(channel)
            try await Self.mark(b, wid, mid, "save")
            #expect(try await b.get("/w/\(wid)/saved").text.contains("채널 안의 이야기"))
            try await b.post(channel + "/leave", [("confirm", "yes")])
            #expect(!(try await b.get("/w/\(wid)/saved")).text.contains("채널 안의 이야기"))
            // Outside the room now: saving again is the 404 of a message they cannot see.
            #expect(try await Self.mark(b, wid, mid, "save").status == .notFound)
            try await a.get(channel)
            try await a.post("/w/\(wid)/m/\(mid)/delete", [("confirm", "yes")])
            #expect(try await app.count("SELECT COUNT(*) FROM saved_messages") == 0)
        }
    }

    @Test("a page kept in memory shows a pin and a save made since")
    func keptPages() async throws {
        try await TestApp().run { app in
            let (a, b, wid, path, mid) = try await ReactionTests.posted(app)
            #expect(!(try await a.get(path)).shown.contains("message-flags"))
            #expect(!(try await b.get(path)).shown.contains("message-flags"))
            try await Self.mark(b, wid, mid, "pin")
            #expect(try await a.get(path).shown.contains(#"class="flag-pinned""#))
            try await Self.mark(a, wid, mid, "save")
            #expect(try await a.get(path).shown.contains(#"<span class="flag-saved">"#))
            #expect(!(try await b.get(path)).shown.contains(#"<span class="flag-saved">"#))
        }
    }

    @Test("without a script the message's page offers pin and save, each as it applies now")
    func messagePageToggles() async throws {
        try await TestApp().run { app in
            let (_, b, wid, path, mid) = try await ReactionTests.posted(app)
            try await b.get(path)
            let page = "/w/\(wid)/m/\(mid)/reactions"
            let before = try await b.get(page)
            #expect(before.text.contains(#"action="/w/\#(wid)/m/\#(mid)/pin""#))
            #expect(before.text.contains(#"action="/w/\#(wid)/m/\#(mid)/save""#))
            let pinned = try await Self.mark(b, wid, mid, "pin", from: page)
            #expect(pinned.location == page)
            try await Self.mark(b, wid, mid, "save", from: page)
            let after = try await b.get(page)
            #expect(after.text.contains(#"action="/w/\#(wid)/m/\#(mid)/unpin""#))
            #expect(after.text.contains(#"<button type="submit" class="message-save" aria-pressed="true">Unsave</button>"#))
            // A page elsewhere is not a place to return to: the form goes to the message.
            let elsewhere = try await Self.mark(b, wid, mid, "unpin", from: "/w/\(wid)/settings")
            #expect(elsewhere.location == "\(path)?around=\(mid)#m-\(mid)")
        }
    }
}
