import Testing
@testable import SlackFormat

/// Slack's markup read as wsx's Markdown: what each construct becomes, and that text which
/// only looks like our markup stays text.
@Suite("Slack markup to Markdown")
struct SlackToMarkdownTests {
    static let converter = SlackToMarkdown(
        person: { ["U01MINA": "민아", "U02BOB": "Bob Stone"][$0] },
        channel: { ["C02DEV": "개발"][$0] },
        emoji: { ["wave": "👋", "+1": "👍", "+1::skin-tone-3": "👍🏼"][$0] })

    @Test("each construct", arguments: [
        ("<@U02BOB> 확인했어요", "@Bob Stone 확인했어요"),
        ("<@U09NOBODY|ghost> hi", "@ghost hi"),
        ("see <#C02DEV|dev-old> and <#C77|elsewhere>", "see #개발 and #elsewhere"),
        ("<!here> <!channel> <!everyone> <!subteam^S1|@design>", "@here @channel @all @design"),
        ("<https://example.com/wiki|the wiki>", "[the wiki](https://example.com/wiki)"),
        ("<https://example.com/a|https://example.com/a> and <https://example.com/b>", "https://example.com/a and https://example.com/b"),
        ("<mailto:a@example.com|a@example.com>", "a@example.com"),
        ("문서는 <https://example.com/docs>에 있어요, 링크:<https://example.com/x>",
         "문서는 [https://example.com/docs](https://example.com/docs)에 있어요, 링크:[https://example.com/x](https://example.com/x)"),
        ("<https://example.com/x y|odd>", "odd (https://example.com/x y)"),
        ("<!date^1392734382^{date}|Feb 18, 2014>", "Feb 18, 2014"),
        ("*bold* _italic_ ~strike~", "**bold** _italic_ ~~strike~~"),
        ("*환영합니다* 여러분", "**환영합니다** 여러분"),
        ("새 글: *wsx*에서 씀, 오늘*중요*합니다", "새 글: **wsx**에서 씀, 오늘**중요**합니다"),
        ("2 &lt; 3 &amp;&amp; 5 &gt; 4", "2 < 3 && 5 > 4"),
        ("&gt; quoted\nnot", "> quoted\nnot"),
        ("• one\n• two", "- one\n- two"),
        ("run `npm test` now", "run `npm test` now"),
        ("결과:\n```ok 12 tests```", "결과:\n```\nok 12 tests\n```"),
        ("before ```a\nb``` after", "before \n```\na\nb\n```\n after"),
        ("hi :wave: :+1::skin-tone-3: :partyparrot:", "hi 👋 👍🏼 :partyparrot:"),
        ("2*3*4 and a*b and snake_case_name", "2\\*3\\*4 and a\\*b and snake_case_name"),
        ("[공지] 내일 회의", "[공지] 내일 회의"),
        ("[not](https://a.b) a link", "\\[not](https://a.b) a link"),
        ("3~5일, ~~twice~~", "3~5일, \\~\\~twice\\~\\~"),
        ("a\\*b", "a\\\\\\*b"),
        ("*not closed and <b", "\\*not closed and <b"),
        ("*span <http://x.org|a*b> end*", "**span [a*b](http://x.org) end**"),
    ])
    func construct(slack: String, markdown: String) {
        #expect(Self.converter.convert(slack) == markdown)
    }

    @Test("long runs of markers and brackets convert in one pass")
    func pathological() {
        let text = String(repeating: "*a _b ~c <x ", count: 5000) + String(repeating: "[x](", count: 5000)
        let converted = Self.converter.convert(text)
        #expect(converted.count > text.count)
    }
}
