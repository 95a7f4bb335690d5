import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import wsx_web

@Suite("Search", .timeLimit(.minutes(5)))
struct SearchTests {
    static func setUp(_ app: TestSession) async throws -> (a: TestBrowser, b: TestBrowser, wid: Int64, general: String) {
        let (a, b, wid, general) = try await MessagingTests.team(app)
        return (a, b, wid, "/w/\(wid)/c/\(general)")
    }

    static func search(_ browser: TestBrowser, _ wid: Int64, _ query: String, extra: String = "") async throws -> TestResponse {
        try await browser.get("/w/\(wid)/search?q=" + TestBrowser.encode([("", query)]).dropFirst() + extra)
    }

    /// The message bodies the page lists, as plain text.
    static func messageHits(_ page: TestResponse) -> [String] {
        page.text.matches(of: /<p class="result-snippet">(.*?)<\/p>/).map {
            String($0.1).replacingOccurrences(of: "<mark>", with: "").replacingOccurrences(of: "</mark>", with: "")
        }
    }

    @Test("Korean substrings of any length, and Latin words by prefix, case-insensitively", arguments: [
        ("회의", "내일 회의를 합니다"), ("의", "내일 회의를 합니다"), ("회의합", "회의합니다"), ("report", "Quarterly Reports are due"),
        ("REPORTS", "Quarterly Reports are due"), ("내일 합니", "내일 회의를 합니다"), ("会議", "明日の会議です"),
    ])
    func findsSubstrings(query: String, expected: String) async throws {
        try await TestApp().run { app in
            let (a, _, wid, general) = try await Self.setUp(app)
            for text in ["내일 회의를 합니다", "회의합니다", "Quarterly Reports are due", "明日の会議です", "전혀 다른 이야기"] {
                _ = try await MessagingTests.say(a, general, text)
            }
            let hits = Self.messageHits(try await Self.search(a, wid, query))
            #expect(hits.contains(expected), "\(query) → \(hits)")
            #expect(!hits.contains("전혀 다른 이야기"))
        }
    }

    @Test("a decomposed (NFD) query finds composed text, and matches are highlighted and escaped")
    func normalizationAndHighlight() async throws {
        try await TestApp().run { app in
            let (a, _, wid, general) = try await Self.setUp(app)
            _ = try await MessagingTests.say(a, general, "<b>회의록</b> 올렸어요")
            let page = try await Self.search(a, wid, "\u{1112}\u{116C}\u{110B}\u{1174}")   // 회의 as jamo
            #expect(page.text.contains("&lt;b&gt;<mark>회의</mark>록&lt;/b&gt; 올렸어요"))
            #expect(page.text.contains(#"?around="#))
        }
    }

    @Test("results read as people see them: plain text, files by name, a DM by the other person, only sections that found something")
    func readableResults() async throws {
        try await TestApp().run { app in
            let (a, b, wid, general) = try await Self.setUp(app)
            _ = try await MessagingTests.say(a, general, "회의 참석은 **필수**입니다")
            let bob = try await app.userId("b@example.com")
            _ = try await MessagingTests.say(b, "/w/\(wid)/dm/\(try await app.userId("a@example.com"))", "필수 서류 보냈어요")
            try await a.get(general)
            try await a.postMultipart(general + "/messages", [("content", "자료")], files: [
                .init(filename: "필수 서류 목록.pdf", data: Fixture.data("doc.pdf"), contentType: "application/pdf"),
            ])

            let page = try await Self.search(a, wid, "필수")
            // Markdown is read, not shown: no asterisks around the match.
            #expect(page.text.contains("회의 참석은 <mark>필수</mark>입니다"))
            #expect(!page.text.contains("**"))
            // The DM is named by Bob and says so, and does not repeat him as its author.
            #expect(page.text.contains(#"<span class="result-room">Conversation with Bob</span> · <time"#))
            // The file is found by its name, linking to its message.
            #expect(page.text.contains(#"<span class="result-file">📎 필수 서류 목록.pdf</span>"#))
            let fileMessage = try await app.count("SELECT MAX(message_id) FROM message_files")
            #expect(page.text.contains("?around=\(fileMessage)#m-\(fileMessage)"))
            // Sections that found nothing are not there.
            #expect(!page.text.contains(#"id="search-channels""#) && !page.text.contains(#"id="search-members""#))
            #expect(!page.text.contains(#"id="search-nothing""#))
            _ = bob

            let nothing = try await Self.search(a, wid, "없는말")
            #expect(nothing.text.contains(#"<p class="empty-state" id="search-nothing">Nothing found. Try other words.</p>"#))
            #expect(!nothing.text.contains("search-results"))
            // Someone outside the room where the file was shared never finds it.
            let stranger = try await app.signedInBrowser(email: "s@example.com", nickname: "Sam")
            try await app.addMember(email: "s@example.com", to: wid, by: a)
            let quiet = try await a.createChannel(in: wid, "quiet")
            try await a.get("/w/\(wid)/c/\(quiet)")
            try await a.postMultipart("/w/\(wid)/c/\(quiet)/messages", [("content", "비공개")], files: [
                .init(filename: "quiet-plan.pdf", data: Fixture.data("doc.pdf"), contentType: "application/pdf"),
            ])
            #expect(try await Self.search(a, wid, "quiet-plan").text.contains("quiet-plan.pdf"))
            #expect(!(try await Self.search(stranger, wid, "quiet-plan")).text.contains("quiet-plan.pdf"))
        }
    }

    @Test("channels by name and description, members by nickname and email")
    func channelsAndMembers() async throws {
        try await TestApp().run { app in
            let (a, _, wid, _) = try await Self.setUp(app)
            _ = try await a.createChannel(in: wid, "공지채널", description: "Announcements")
            _ = try await a.createChannel(in: wid, "random", description: "잡담 채널")
            let page = try await Self.search(a, wid, "채널")
            #expect(page.text.contains(">공지채널</a>"))
            #expect(page.text.contains(">random</a>"))
            let byDescription = try await Self.search(a, wid, "announce")
            #expect(byDescription.text.contains(">공지채널</a>"))
            let people = try await Self.search(a, wid, "B@EXAMPLE")
            #expect(people.text.contains(">Bob</a>"))
            #expect(try await Self.search(a, wid, "ali").text.contains(">Alice</a>"))
        }
    }

    @Test("%, _ and \\ in a query are the characters themselves, not wildcards")
    func wildcardsAreLiteral() async throws {
        try await TestApp().run { app in
            let (a, _, wid, _) = try await Self.setUp(app)
            _ = try await a.createChannel(in: wid, "q3_plan")
            _ = try await a.createChannel(in: wid, "q3-plan")
            let underscore = try await Self.search(a, wid, "q3_")
            #expect(underscore.text.contains(">q3_plan</a>"))
            #expect(underscore.text.contains(">q3-plan</a>") == false)
            let percent = try await Self.search(a, wid, "q3%plan")
            #expect(percent.text.contains(">q3_plan</a>") == false && percent.text.contains(">q3-plan</a>") == false)
            #expect(try await Self.search(a, wid, "\\").text.contains(">q3_plan</a>") == false)
        }
    }

    @Test("never a message of a room the person is not in, nor channels or people of another workspace")
    func authorizationMatrix() async throws {
        try await TestApp().run { app in
            let (a, b, wid, general) = try await Self.setUp(app)
            let secret = try await a.createChannel(in: wid, "owners-only")
            _ = try await MessagingTests.say(a, "/w/\(wid)/c/\(secret)", "비밀 계획 plan")
            _ = try await MessagingTests.say(a, general, "공개 계획 plan")
            let bId = try await app.userId("b@example.com")
            _ = try await a.post("/w/\(wid)/dm/\(bId)/messages", [("content", "둘만의 계획 plan")])
            let outsider = try await app.signedInBrowser(email: "x@example.com", nickname: "Outsider")
            let otherWid = try await outsider.createWorkspace("Elsewhere")
            let otherGeneral = try await app.count("SELECT id FROM rooms WHERE workspace_id = ? AND is_default = TRUE", [otherWid])
            _ = try await MessagingTests.say(outsider, "/w/\(otherWid)/c/\(otherGeneral)", "남의 계획 plan")
            _ = try await outsider.createChannel(in: otherWid, "계획채널")

            #expect(Set(Self.messageHits(try await Self.search(a, wid, "계획"))) == ["비밀 계획 plan", "공개 계획 plan", "둘만의 계획 plan"])
            #expect(Set(Self.messageHits(try await Self.search(b, wid, "계획"))) == ["공개 계획 plan", "둘만의 계획 plan"])
            let carol = try await app.signedInBrowser(email: "c@example.com")
            try await app.addMember(email: "c@example.com", to: wid, by: a)
            #expect(Set(Self.messageHits(try await Self.search(carol, wid, "plan"))) == ["공개 계획 plan"])
            let ownPage = try await Self.search(a, wid, "계획")
            #expect(!ownPage.text.contains("계획채널") && !ownPage.text.contains("Outsider"))
            #expect(try await Self.search(outsider, wid, "계획").status == .notFound)
        }
    }

    @Test("edits and deletions update the index in the same transaction; deleted messages are never found")
    func editsAndDeletions() async throws {
        try await TestApp().run { app in
            let (a, _, wid, general) = try await Self.setUp(app)
            _ = try await MessagingTests.say(a, general, "사과 apple")
            let mid = try await app.count("SELECT MAX(id) FROM messages")
            try await a.post("/w/\(wid)/m/\(mid)/edit", [("content", "배 pear")])
            #expect(Self.messageHits(try await Self.search(a, wid, "사과")).isEmpty)
            #expect(Self.messageHits(try await Self.search(a, wid, "pear")) == ["배 pear"])
            try await a.post("/w/\(wid)/m/\(mid)/delete", [("confirm", "yes")])
            #expect(Self.messageHits(try await Self.search(a, wid, "배")).isEmpty)
            // Deleting a channel removes its messages from the index too (by cascade).
            let cid = try await a.createChannel(in: wid, "gone")
            _ = try await MessagingTests.say(a, "/w/\(wid)/c/\(cid)", "사라질 문장")
            try await a.confirm("/w/\(wid)/c/\(cid)/delete")
            // The index answers nothing for the room's words, even asked about the room itself.
            #expect(try app.database.query { tx in
                try tx.search.messages(matching: "사라질", roomIds: [cid], beforeId: .max, limit: 10)
            }.isEmpty)
        }
    }

    @Test("an empty query shows a hint; over 100 characters is a 422; FTS syntax is just text",
          arguments: ["\"", "*", "(", "-", "NEAR", "a\"b OR c", "회의 AND", "^", ":"])
    func badQueries(query: String) async throws {
        try await TestApp().run { app in
            let (a, _, wid, general) = try await Self.setUp(app)
            _ = try await MessagingTests.say(a, general, "NEAR the end - (quoted) \"text\" *stars*")
            let page = try await Self.search(a, wid, query)
            #expect(page.status == .ok, "\(query)")
            let empty = try await a.get("/w/\(wid)/search?q=")
            #expect(empty.status == .ok)
            #expect(empty.text.contains("Type what to look for."))
            #expect(try await Self.search(a, wid, String(repeating: "가", count: 101)).status == .unprocessableContent)
        }
    }

    @Test("messages newest first, 50 at a time, with more by keyset")
    func paging() async throws {
        try await TestApp().run { app in
            let (a, _, wid, general) = try await Self.setUp(app)
            try await a.get(general)
            for index in 1...60 { try await a.post(general + "/messages", [("content", "반복 \(index)")]) }
            let first = try await Self.search(a, wid, "반복")
            let hits = Self.messageHits(first)
            #expect(hits.count == 50)
            #expect(hits.first == "반복 60" && hits.last == "반복 11")
            let more = try #require(first.text.firstMatch(of: /href="([^"]*messages_before=\d+[^"]*)"/)?.1)
            let rest = Self.messageHits(try await a.get(String(more).replacingOccurrences(of: "&amp;", with: "&")))
            #expect(rest == (1...10).reversed().map { "반복 \($0)" })
            #expect(try await Self.search(a, wid, "반복", extra: "&messages_before=abc").status == .badRequest)
        }
    }
}
