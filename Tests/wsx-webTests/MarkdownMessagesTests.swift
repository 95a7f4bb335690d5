import Foundation
import HTTPTypes
import Testing
@testable import wsx_web

/// Markdown in messages end to end: shown formatted, searched by its words, edited as written.
@Suite("Markdown messages")
struct MarkdownMessagesTests {
    @Test("a message shows formatted, is found by its words (not its markers), and its author edits the source")
    func formattedSearchedEdited() async throws {
        try await TestApp().run { app in
            let (a, b, wid, general) = try await MessagingTests.team(app)
            let path = "/w/\(wid)/c/\(general)"
            try await a.get(path)
            let json: HTTPFields = [.accept: "application/json"]
            let sent = try await a.post(path + "/messages", [("content", "**중요**합니다\n- `npm test` 실행")], headers: json)
            let id = try #require(sent.text.firstMatch(of: /"id":(\d+)/)?.1)
            #expect(sent.text.contains("<strong>중요</strong>합니다<ul><li><code>npm test</code> 실행</li></ul>"))

            let page = try await b.get(path)
            #expect(page.text.contains(#"<div class="message-body"><strong>중요</strong>합니다<ul><li><code>npm test</code> 실행</li></ul></div>"#))
            #expect(try await b.get("/w/\(wid)/search?q=%EC%A4%91%EC%9A%94%ED%95%A9").text.contains("m-\(id)"))     // 중요합

            let source = try await a.get("/w/\(wid)/m/\(id)/edit", headers: json)
            #expect(source.status == .ok)
            #expect(source.text.contains(#""content":"**중요**합니다\n- `npm test` 실행""#))
            #expect(try await b.get("/w/\(wid)/m/\(id)/edit", headers: json).status == .forbidden)
            let noScript = try await a.get("/w/\(wid)/m/\(id)/edit")
            #expect(noScript.location == "\(path)?around=\(id)&edit=\(id)#m-\(id)")
            let outsider = try await app.signedInBrowser(email: "x@example.com")
            #expect(try await outsider.get("/w/\(wid)/m/\(id)/edit", headers: json).status == .notFound)

            let edited = try await a.post("/w/\(wid)/m/\(id)/edit", [("content", "_참고_로 ~~취소~~")], headers: json)
            #expect(edited.text.contains("<em>참고</em>로 <del>취소</del>"))
            // The words without their markers: 참고로 is one word to search, as it reads.
            #expect(try await b.get("/w/\(wid)/search?q=%EC%B0%B8%EA%B3%A0%EB%A1%9C").text.contains("m-\(id)"))  // 참고로
        }
    }
}
