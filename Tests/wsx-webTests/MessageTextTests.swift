import Foundation
import Testing
import Views
@testable import wsx_web

@Suite("Message text", .timeLimit(.minutes(5)))
struct MessageTextTests {
    let members = MentionDirectory(["민아": 1, "Kim Lee": 2, "bob": 3, "bobby": 4])

    @Test("everything is escaped; <script> stays text")
    func escapes() {
        #expect(MessageHTML.render("<script>alert('x')</script> & \"q\"", members: .none).html
                == "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;")
    }

    @Test("addresses become links that open safely; trailing punctuation stays outside")
    func links() {
        let html = MessageHTML.render("see https://example.com/a?b=1&c=2. and (http://x.org/p)", members: .none).html
        #expect(html.contains(#"<a href="https://example.com/a?b=1&amp;c=2" rel="noopener noreferrer nofollow" target="_blank">https://example.com/a?b=1&amp;c=2</a>."#))
        #expect(html.contains(#"(<a href="http://x.org/p" rel="noopener noreferrer nofollow" target="_blank">http://x.org/p</a>)"#))
        #expect(!MessageHTML.render("javascript:alert(1) https://", members: .none).html.contains("<a"))
        #expect(!MessageHTML.render("xhttps://evil.example", members: .none).html.contains("<a"))
    }

    @Test("closing brackets stay in an address only when it opened them, however many follow")
    func brackets() {
        let link = { (url: String) in #"<a href="\#(url)" rel="noopener noreferrer nofollow" target="_blank">\#(url)</a>"# }
        #expect(MessageHTML.render("https://a" + String(repeating: ")", count: 4990), members: .none).html
                == link("https://a") + String(repeating: ")", count: 4990))
        #expect(MessageHTML.render("(https://en.wikipedia.org/wiki/Seoul_(city)).", members: .none).html
                == "(" + link("https://en.wikipedia.org/wiki/Seoul_(city)") + ").")
        #expect(MessageHTML.render("https://a" + String(repeating: "(", count: 10) + String(repeating: ")", count: 12) + "!?",
                                   members: .none).html
                == link("https://a" + String(repeating: "(", count: 10) + String(repeating: ")", count: 10)) + "))!?")
        #expect(MessageHTML.render("https://a.,;:!?", members: .none).html == link("https://a") + ".,;:!?")
    }

    @Test("pathological texts render to the same text, linked where they should be")
    func pathological() {
        let nested = String(repeating: "(https://", count: 600)
        let rendered = MessageHTML.render(nested, members: .none).html
        // Each "(" is outside; the first address runs to the end (no whitespace) and is one link.
        #expect(rendered.hasPrefix("(<a href=\"https://(https://"))
        #expect(rendered.components(separatedBy: "<a ").count == 2)
        let ats = String(repeating: "@ ", count: 2500)
        #expect(MessageHTML.render(ats, members: members).html == HTMLEscaping.escape(ats))
        let many = String(repeating: "@민아 @bobby, ", count: 300)
        let mentions = MessageHTML.render(many, members: members)
        #expect(mentions.mentioned == [1, 4])
        #expect(mentions.html.components(separatedBy: #"class="mention""#).count == 601)
    }

    @Test("mentions of members are marked, longest nickname first, Korean included")
    func mentions() {
        let rendered = MessageHTML.render("@민아 @Kim Lee hi @bobby, @nobody", members: members)
        #expect(rendered.html == #"<span class="mention" data-user="1">@민아</span> <span class="mention" data-user="2">@Kim Lee</span> hi <span class="mention" data-user="4">@bobby</span>, @nobody"#)
        #expect(rendered.mentioned == [1, 2, 4])
        // Not inside words, and not when more letters follow.
        #expect(MessageHTML.render("mail@bob.com @bobx", members: members).mentioned == [])
    }

    @Test("text is stored in NFC with line breaks kept and control characters removed")
    func cleaning() {
        #expect(MessageText.clean("  \u{1112}\u{1161}\u{11AB}\r\nline\u{0007}2\t  ") == "한\nline2")
    }

    @Test("a notification's snippet is the text on one line, cut to 140 characters (Korean counted as characters, not bytes)")
    func snippets() {
        #expect(MessageText.snippet("첫 줄\n둘째 줄") == "첫 줄 둘째 줄")
        let korean = String(repeating: "회", count: 140)
        #expect(MessageText.snippet(korean) == korean)
        #expect(MessageText.snippet(korean + "의") == String(repeating: "회", count: 139) + "…")
        #expect(MessageText.snippet(String(repeating: "a", count: 141)) == String(repeating: "a", count: 139) + "…")
    }

    @Test("a byte search finds text after Korean and emoji, at indices that slice the string")
    func byteSearch() throws {
        let html = "<p>회의 👩‍👩‍👧 <a href=\"https://예.kr/?a=1&amp;b=2\">link</a></p>"
        let found = try #require(html.firstUTF8Range(of: "<a href=\""))
        #expect(html[found.upperBound...].hasPrefix("https://예.kr/"))
        #expect(html.firstUTF8Range(of: "<a href='") == nil && html.firstUTF8Range(of: "") == nil)
        #expect(LinkPreviewService.firstLink(inHTML: html)?.absoluteString.hasSuffix("?a=1&b=2") == true)
    }

    @Test("plain ASCII keeps its inner spaces, tabs and line breaks and loses only blank ends; blank text is empty")
    func cleaningPlainText() {
        #expect(MessageText.clean(" \t\n  a  b\tc\n\nd  \n\t") == "a  b\tc\n\nd")
        #expect(MessageText.clean("x") == "x")
        #expect(MessageText.clean(" \t\n ") == "")
        #expect(MessageText.clean("") == "")
        // Not plain: a bell, a CR, a form feed are handled by the full path.
        #expect(MessageText.clean("a\u{07}b\r\nc\u{0C}") == "ab\nc")
    }
}

@Suite("Timestamps", .timeLimit(.minutes(5)))
struct TimestampsTests {
    @Test("days, ISO times and UTC texts agree with Foundation, across leap years and before 1970")
    func matchFoundation() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm 'UTC'"
        // Every 7 hours 13 minutes 23 seconds from 1960 to 2100, plus the edges of leap days.
        var moments = stride(from: -315_619_200.0, to: 4_102_444_800.0, by: 26_003).map { Date(timeIntervalSince1970: $0) }
        moments += [951_782_399, 951_782_400, 951_868_800, 4_107_542_399, -1, 0.5, -0.5].map { Date(timeIntervalSince1970: $0) }
        var failures = 0
        for moment in moments where failures < 3 {
            let parts = calendar.dateComponents([.year, .month, .day], from: moment)
            let day = String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
            let expected = (day, moment.formatted(.iso8601), formatter.string(from: moment))
            let actual = (Timestamps.utcDay(moment), Timestamps.iso(moment), Timestamps.utcText(moment))
            if actual != expected {
                failures += 1
                Issue.record("at \(moment.timeIntervalSince1970): \(actual) instead of \(expected)")
            }
        }
    }
}
