import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import wsx_web

/// Markdown in messages end to end: shown formatted, searched by its words, edited as written.
@Suite("Markdown messages", .timeLimit(.minutes(5)))
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

    @Test("#name links the workspace's public channel, whoever reads it; a private channel's name stays text; an edit links too")
    func channelLinks() async throws {
        try await TestApp().run { app in
            let (a, b, wid, general) = try await MessagingTests.team(app)
            let dev = try await a.createChannel(in: wid, "개발")
            try await a.get("/w/\(wid)/channels")
            let created = try await a.post("/w/\(wid)/channels", [("name", "비밀"), ("visibility", "private")])
            let secret = try #require(created.location.flatMap { $0.split(separator: "/").last.flatMap { Int64($0) } })
            // Another workspace's channel is not this one's to link.
            let carol = try await app.signedInBrowser(email: "c@example.com", nickname: "Carol")
            _ = try await carol.createChannel(in: try await carol.createWorkspace("Other"), "디자인")
            let path = "/w/\(wid)/c/\(general)"
            try await a.get(path)
            let json: HTTPFields = [.accept: "application/json"]
            let sent = try await a.post(path + "/messages", [("content", "#개발에서 보고, #비밀 말고 #디자인 도 아님")], headers: json)
            let id = try #require(sent.text.firstMatch(of: /"id":(\d+)/)?.1)
            let link = #"<a class="channel-ref" href="/w/\#(wid)/c/\#(dev)" data-room="\#(dev)">#개발</a>"#

            // Bob is not in 개발, and reads the link all the same (a public channel he may open and join).
            let page = try await b.get(path)
            #expect(page.text.contains(link + "에서 보고, #비밀 말고 #디자인 도 아님"))
            #expect(!page.text.contains("/c/\(secret)\""))
            #expect(try await b.get("/w/\(wid)/c/\(dev)").status == .ok)
            // Found by the words as typed.
            #expect(try await b.get("/w/\(wid)/search?q=%EA%B0%9C%EB%B0%9C%EC%97%90%EC%84%9C").text.contains("m-\(id)"))  // 개발에서

            let edited = try await a.post("/w/\(wid)/m/\(id)/edit", [("content", "이제 **#개발**로")], headers: json)
            #expect(edited.status == .ok)
            #expect(try await b.get(path).text.contains("이제 <strong>\(link)</strong>로"))
        }
    }
}
