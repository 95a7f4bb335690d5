import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import wsx_web

/// Reactions: toggling with and without a script, what the list shows each viewer, the emoji
/// the server accepts, the limit per message, the event, and who may react.
@Suite("Reactions", .timeLimit(.minutes(5)))
struct ReactionTests {
    /// Alice posts in the workspace's default channel; Bob is a member of it.
    static func posted(_ app: TestSession) async throws -> (a: TestBrowser, b: TestBrowser, wid: Int64, path: String, mid: Int64) {
        let (a, b, wid, general) = try await MessagingTests.team(app)
        let path = "/w/\(wid)/c/\(general)"
        try await MessagingTests.say(a, path, "회의는 3시입니다")
        let mid = Int64(try await app.count("SELECT MAX(id) FROM messages"))
        return (a, b, wid, path, mid)
    }

    static func react(_ browser: TestBrowser, _ wid: Int64, _ mid: Int64, _ emoji: String,
                      json: Bool = false) async throws -> TestResponse {
        try await browser.post("/w/\(wid)/m/\(mid)/reactions", [("emoji", emoji)],
                               headers: json ? [.accept: "application/json"] : [:])
    }

    @Test("without a script: a reaction is a form post back to the message; everyone sees it, the reactor's pressed")
    func toggleWithForms() async throws {
        try await TestApp().run { app in
            let (a, b, wid, path, mid) = try await Self.posted(app)
            try await b.get(path)
            let reacted = try await Self.react(b, wid, mid, "👍")
            #expect(reacted.status == .seeOther)
            #expect(reacted.location == "\(path)?around=\(mid)#m-\(mid)")

            let bob = try await b.get(path)
            #expect(bob.shown.contains(#"<form method="post" action="/w/\#(wid)/m/\#(mid)/reactions" class="reactions" data-reactions>"#))
            #expect(bob.text.contains(#"<button type="submit" name="emoji" value="👍" class="reaction reaction-mine" aria-pressed="true" aria-label="👍 1: Bob" data-who="Bob">👍 <span class="reaction-count">1</span></button>"#))
            let alice = try await a.get(path)
            #expect(alice.text.contains(#"class="reaction" aria-pressed="false" aria-label="👍 1: Bob" data-who="Bob""#))

            // Alice adds hers to the same emoji, then another: counts and names in order.
            try await Self.react(a, wid, mid, "👍")
            try await Self.react(a, wid, mid, "🎉")
            let both = try await a.get(path)
            #expect(both.text.contains(#"aria-pressed="true" aria-label="👍 2: Bob, Alice" data-who="Bob, Alice">👍 <span class="reaction-count">2</span>"#))
            #expect(both.text.range(of: #"value="👍""#)!.lowerBound < both.text.range(of: #"value="🎉""#)!.lowerBound)

            // Toggling again takes each back; with none left, no reactions under the message.
            try await Self.react(b, wid, mid, "👍")
            try await Self.react(a, wid, mid, "👍")
            try await Self.react(a, wid, mid, "🎉")
            #expect(try await app.count("SELECT COUNT(*) FROM reactions") == 0)
            #expect(!(try await b.get(path)).shown.contains("class=\"reactions\""))
        }
    }

    @Test("every room member gets a React link on every message; a workspace member outside the room does not")
    func reactLinks() async throws {
        try await TestApp().run { app in
            let (a, b, wid, path, mid) = try await Self.posted(app)
            let link = #"<a href="/w/\#(wid)/m/\#(mid)/reactions" class="message-react">React</a>"#
            #expect(try await b.get(path).text.contains(link))
            #expect(try await a.get(path).text.contains(link))

            let cid = try await a.createChannel(in: wid, "quiet")
            try await MessagingTests.say(a, "/w/\(wid)/c/\(cid)", "only for members")
            let quiet = Int64(try await app.count("SELECT MAX(id) FROM messages"))
            let outside = try await b.get("/w/\(wid)/c/\(cid)")
            #expect(outside.text.contains("only for members"))
            #expect(!outside.text.contains("/m/\(quiet)/reactions"))
            #expect(!outside.text.contains("data-react-url"))
        }
    }

    @Test("the same emoji with or without its variation selector is one reaction, stored fully qualified")
    func variationSelectors() async throws {
        try await TestApp().run { app in
            let (_, b, wid, path, mid) = try await Self.posted(app)
            try await b.get(path)
            #expect(try await Self.react(b, wid, mid, "❤").status == .seeOther)
            let stored = try app.database.query { tx in try tx.inspection.rows("SELECT emoji FROM reactions", []).first?.first }
            #expect(stored == "❤️")
            // The fully-qualified form toggles the same reaction off.
            try await Self.react(b, wid, mid, "❤️")
            #expect(try await app.count("SELECT COUNT(*) FROM reactions") == 0)
            // Skin tones, flags and joined sequences are emoji too.
            // A keycap starts with `#`, as the table's comments do.
            for emoji in ["👍🏽", "🇰🇷", "👨‍👩‍👧", "#️⃣"] {
                #expect(try await Self.react(b, wid, mid, emoji).status == .seeOther, "\(emoji)")
            }
            #expect(try await app.count("SELECT COUNT(*) FROM reactions") == 4)
        }
    }

    @Test("text that is not exactly one emoji is refused with a message, and nothing is stored")
    func notAnEmoji() async throws {
        try await TestApp().run { app in
            let (_, b, wid, path, mid) = try await Self.posted(app)
            try await b.get(path)
            for text in ["", "like", ":thumbsup:", "👍👍", "👍 ok", "<b>", "A", "1"] {
                let json = try await Self.react(b, wid, mid, text, json: true)
                #expect(json.status == .unprocessableContent, "\(text)")
                #expect(json.text == #"{"error":"Choose one emoji."}"#, "\(text)")
            }
            let page = try await Self.react(b, wid, mid, "like")
            #expect(page.status == .unprocessableContent)
            #expect(page.text.contains(#"<p class="form-error" role="alert">Choose one emoji.</p>"#))
            #expect(page.text.contains(#"id="reaction-other-form""#))
            #expect(try await app.count("SELECT COUNT(*) FROM reactions") == 0)
            #expect(try await app.count("SELECT COUNT(*) FROM events WHERE type = 'reactions.changed'") == 0)
        }
    }

    @Test("a message takes at most 50 different emoji; more people may still add to those it has")
    func limitPerMessage() async throws {
        try await TestApp().run { app in
            let (a, b, wid, path, mid) = try await Self.posted(app)
            let catalog = app.services.reactions.catalog
            let fifty = ["😀", "😃", "😄", "😁", "😆", "😅", "🤣", "😂", "🙂", "🙃", "😉", "😊", "😇", "🥰", "😍", "🤩", "😘",
                         "😗", "😚", "😙", "😋", "😛", "😜", "🤪", "😝", "🤑", "🤗", "🤭", "🤫", "🤔", "🤐", "🤨", "😐", "😑",
                         "😶", "😏", "😒", "🙄", "😬", "🤥", "😌", "😔", "😪", "🤤", "😴", "😷", "🤒", "🤕", "🤢", "🤮"]
            #expect(Set(fifty).count == 50 && fifty.allSatisfy { catalog.entry(for: $0) != nil })
            let alice = try await app.userId("a@example.com")
            try await app.database.write { tx in
                for emoji in fifty {
                    try tx.reactions.add(messageId: mid, emoji: emoji, userId: alice, at: Date())
                }
            }
            try await b.get(path)
            let refused = try await Self.react(b, wid, mid, "🎉", json: true)
            #expect(refused.status == .conflict)
            #expect(refused.text == #"{"error":"A message can have at most 50 different reactions."}"#)
            #expect(try await app.count("SELECT COUNT(*) FROM reactions") == 50)
            #expect(try await Self.react(b, wid, mid, "🤮", json: true).status == .ok)
            #expect(try await app.count("SELECT COUNT(*) FROM reactions WHERE emoji = '🤮'") == 2)
            _ = a
        }
    }

    @Test("a change is one event to the room with every reaction as it is now; the script gets the same in its answer")
    func eventAndAnswer() async throws {
        try await TestApp().run { app in
            let (a, b, wid, path, mid) = try await Self.posted(app)
            try await a.get(path)
            try await Self.react(a, wid, mid, "🙏")
            try await b.get(path)
            let answer = try await Self.react(b, wid, mid, "🙏", json: true)
            #expect(answer.status == .ok)
            let (alice, bob) = (try await app.userId("a@example.com"), try await app.userId("b@example.com"))
            let general = path.split(separator: "/").last!
            let expected = #"{"messageId":\#(mid),"reactions":[{"emoji":"🙏","names":["Alice","Bob"],"userIds":[\#(alice),\#(bob)]}],"roomId":\#(general),"workspaceId":\#(wid)}"#
            #expect(answer.text == expected)
            let events = try app.database.query { tx in
                try tx.inspection.rows("SELECT room_id, payload FROM events WHERE type = 'reactions.changed' ORDER BY id", [])
            }
            #expect(events.count == 2)
            #expect(events.last?[1] == expected)
            #expect(events.last?[0] == String(general))
        }
    }

    @Test("a page kept in memory shows a reaction made since; deleting the message takes its reactions")
    func keptPagesAndDeletion() async throws {
        try await TestApp().run { app in
            let (a, b, wid, path, mid) = try await Self.posted(app)
            #expect(!(try await a.get(path)).shown.contains("class=\"reactions\""))
            try await b.get(path)
            try await Self.react(b, wid, mid, "👀")
            #expect(try await a.get(path).text.contains(#"value="👀""#))
            try await a.post("/w/\(wid)/m/\(mid)/delete", [("confirm", "yes")])
            #expect(try await app.count("SELECT COUNT(*) FROM reactions") == 0)
        }
    }

    @Test("the page without a script: who reacted, the common reactions named in Korean, the viewer's pressed")
    func pageWithoutScript() async throws {
        try await TestApp().run { app in
            let (a, b, wid, path, mid) = try await Self.posted(app)
            try await b.get(path)
            try await Self.react(b, wid, mid, "👍")
            try await a.post("/lang", [("lang", "ko"), ("next", path)])
            let page = try await a.get("/w/\(wid)/m/\(mid)/reactions")
            #expect(page.status == .ok)
            #expect(page.text.contains("<h1>반응</h1>"))
            #expect(page.text.contains("회의는 3시입니다"))
            #expect(page.text.contains(#"<span class="reaction-emoji">👍</span> <span class="reaction-count">1</span> <span class="reaction-names">Bob</span>"#))
            #expect(page.text.contains(#"<button type="submit" name="emoji" value="👍" class="reaction-choice" aria-pressed="false"><span class="reaction-emoji" aria-hidden="true">👍</span> <span class="reaction-choice-name">올린 엄지</span></button>"#))
            #expect(page.text.contains(#"<a href="\#(path)?around=\#(mid)#m-\#(mid)">대화로 돌아가기</a>"#))
            let mine = try await b.get("/w/\(wid)/m/\(mid)/reactions")
            #expect(mine.text.contains(#"value="👍" class="reaction-choice reaction-mine" aria-pressed="true""#))
            let json = try await b.get("/w/\(wid)/m/\(mid)/reactions", headers: [.accept: "application/json"])
            #expect(json.text.hasPrefix(#"{"messageId":\#(mid),"reactions":[{"emoji":"👍","names":["Bob"]"#))
        }
    }

    @Test("strangers and workspace members outside the room get a 404 for reading and reacting, and nothing changes")
    func outsidersAreRefused() async throws {
        try await TestApp().run { app in
            let (a, b, wid, _, _) = try await Self.posted(app)
            let cid = try await a.createChannel(in: wid, "private-ish")
            try await MessagingTests.say(a, "/w/\(wid)/c/\(cid)", "inside")
            let inside = Int64(try await app.count("SELECT MAX(id) FROM messages"))
            let stranger = try await app.signedInBrowser(email: "s@example.com", nickname: "Stranger")
            let before = try await app.workspaceSnapshot()
            for browser in [stranger, b] {
                try await browser.get("/workspaces")
                #expect(try await browser.get("/w/\(wid)/m/\(inside)/reactions").status == .notFound)
                #expect(try await Self.react(browser, wid, inside, "👍").status == .notFound)
                #expect(try await Self.react(browser, wid, inside, "👍", json: true).status == .notFound)
            }
            #expect(try await app.workspaceSnapshot() == before)
            // An unknown message, or one named under another workspace, is the same 404.
            let other = try await stranger.createWorkspace("Elsewhere")
            #expect(try await Self.react(stranger, other, inside, "👍").status == .notFound)
            #expect(try await Self.react(a, wid, 999_999, "👍").status == .notFound)
            #expect(try await app.count("SELECT COUNT(*) FROM reactions") == 0)
        }
    }
}
