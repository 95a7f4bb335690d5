import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import wsx_web

/// Custom statuses: set and cleared from the profile, shown next to the name where teammates
/// see it, told to them live, refused when malformed, gone when they expire.
@Suite("Custom status", .timeLimit(.minutes(5)))
struct StatusTests {
    static func setStatus(_ browser: TestBrowser, _ emoji: String, _ text: String, _ duration: String = "") async throws
        -> TestResponse {
        try await browser.get("/profile")
        return try await browser.post("/profile/status", [("emoji", emoji), ("text", text), ("duration", duration)])
    }

    @Test("a status shows beside the name on the members page, the profile and the DM; teammates are told, strangers are not")
    func shownAndTold() async throws {
        try await TestApp().run { app in
            let (a, b, wid, general) = try await MessagingTests.team(app)
            let stranger = try await app.signedInBrowser(email: "s@example.com", nickname: "Stranger")
            _ = try await stranger.createWorkspace("Elsewhere")
            let alice = try await app.userId("a@example.com")
            let set = try await Self.setStatus(a, "🌴", "휴가 중 <월요일까지>")
            #expect(set.status == .seeOther)
            #expect(set.location == "/profile")

            let shown = #"<span class="user-status" data-status="\#(alice)">🌴 휴가 중 &lt;월요일까지&gt;</span>"#
            #expect(try await b.get("/w/\(wid)/members").text.contains(shown))
            #expect(try await b.get("/users/\(alice)").text.contains(
                #"<p class="user-status" data-status="\#(alice)">🌴 휴가 중 &lt;월요일까지&gt;</p>"#))
            let dm = try await b.get("/w/\(wid)/dm/\(alice)")
            #expect(dm.text.contains(shown))

            // Each row: room_id, user_id, payload, as text.
            let events = try app.database.query { tx in
                try tx.inspection.rows("SELECT room_id, user_id, payload FROM events WHERE type = 'status.changed' ORDER BY id", [])
            }
            let payload = #"{"status":"🌴 휴가 중 <월요일까지>","userId":\#(alice)}"#
            #expect(events.map { $0[2] } == [payload, payload])
            #expect(events.first?[0] == "\(general)")
            #expect(events.last?[1] == "\(alice)")
        }
    }

    @Test("clearing takes it away everywhere and tells the same people")
    func clearing() async throws {
        try await TestApp().run { app in
            let (a, b, wid, _) = try await MessagingTests.team(app)
            let alice = try await app.userId("a@example.com")
            try await Self.setStatus(a, "🤒", "병가")
            try await a.get("/profile")
            let cleared = try await a.post("/profile/status", [("emoji", "🤒"), ("text", "병가"), ("clear", "1")])
            #expect(cleared.status == .seeOther)
            #expect(try await app.count("SELECT COUNT(*) FROM user_statuses") == 0)
            #expect(try await b.get("/w/\(wid)/members").text.contains(#"<span class="user-status" data-status="\#(alice)"></span>"#))
            let last: String? = try app.database.query { tx in
                try tx.inspection.rows("SELECT payload FROM events WHERE type = 'status.changed' ORDER BY id DESC LIMIT 1", []).first?[0]
            }
            #expect(last == #"{"userId":\#(alice)}"#)
        }
    }

    @Test("a status set for 30 minutes is gone after them")
    func expiry() async throws {
        try await TestApp().run { app in
            let (a, b, wid, _) = try await MessagingTests.team(app)
            try await Self.setStatus(a, "🍱", "점심", "30m")
            #expect(try await b.get("/w/\(wid)/members").text.contains("🍱 점심"))
            app.clock.advance(by: 29 * 60)
            #expect(try await b.get("/w/\(wid)/members").text.contains("🍱 점심"))
            app.clock.advance(by: 2 * 60)
            #expect(!(try await b.get("/w/\(wid)/members").text.contains("🍱 점심")))
            let profile = try await a.get("/profile").text
            #expect(!profile.contains("🍱 점심") && !profile.contains(#"value="점심""#))
        }
    }

    @Test("not an emoji, or more than 100 characters, is refused beside its field; nothing is stored or told")
    func refused() async throws {
        try await TestApp().run { app in
            let (a, _, _, _) = try await MessagingTests.team(app)
            try await a.post("/lang", [("lang", "ko"), ("next", "/profile")])
            let notEmoji = try await Self.setStatus(a, "palm", "휴가")
            #expect(notEmoji.status == .unprocessableContent)
            #expect(notEmoji.text.contains(#"<p class="field-error" id="status-emoji-error">이모지 하나를 골라 주세요.</p>"#))
            #expect(notEmoji.text.contains(#"value="palm""#))
            let long = try await Self.setStatus(a, "🌴", String(repeating: "가", count: 101))
            #expect(long.status == .unprocessableContent)
            #expect(long.text.contains(#"<p class="field-error" id="status-text-error">100자까지 쓸 수 있습니다.</p>"#))
            #expect(try await Self.setStatus(a, "🌴", "휴가", "forever").status == .badRequest)
            #expect(try await app.count("SELECT COUNT(*) FROM user_statuses") == 0)
            #expect(try await app.count("SELECT COUNT(*) FROM events WHERE type = 'status.changed'") == 0)
        }
    }
}
