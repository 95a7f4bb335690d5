import Testing
@testable import SlackFormat

/// A message's HTML written as Slack's markup, for exports.
@Suite("Message HTML to Slack markup")
struct MessageHTMLToSlackTests {
    static let converter = MessageHTMLToSlack(slackUser: { [2: "U02BOB"][$0] }, slackChannel: { [5: "C02DEV"][$0] })

    @Test("each construct", arguments: [
        ("<strong>bold</strong> <em>it</em> <del>gone</del> <code>a &lt; b</code>", "*bold* _it_ ~gone~ `a &lt; b`"),
        (#"<span class="mention" data-user="2">@Bob</span>님 <span class="mention" data-user="here">@여기</span> <span class="mention" data-user="9">@Nobody</span>"#,
         "<@U02BOB>님 <!here> @Nobody"),
        (#"see <a href="https://example.com/wiki" rel="noopener noreferrer nofollow" target="_blank">the wiki</a> or <a href="https://x.org/?a=1&amp;b=2" rel="noopener noreferrer nofollow" target="_blank">https://x.org/?a=1&amp;b=2</a>"#,
         "see <https://example.com/wiki|the wiki> or <https://x.org/?a=1&amp;b=2>"),
        (#"<a class="channel-ref" href="/w/1/c/5" data-room="5">#개발</a>에서 <a class="channel-ref" href="/w/1/c/9" data-room="9">#a&amp;b</a>"#,
         "<#C02DEV|개발>에서 #a&amp;b"),
        ("line<br>next", "line\nnext"),
        ("<blockquote>quoted<br>still</blockquote>after", "&gt; quoted\n&gt; still\nafter"),
        ("intro<ul><li>one</li><li><strong>two</strong></li></ul>after", "intro\n• one\n• *two*\nafter"),
        (#"<ol start="3"><li>three</li><li>four</li></ol>"#, "3. three\n4. four"),
        ("결과:<pre data-lang=\"sh\"><code>ok &lt;12&gt; tests&#39;\ndone</code></pre>끝", "결과:\n```ok &lt;12&gt; tests'\ndone```\n끝"),
        ("2 &lt; 3 &amp;&amp; &quot;x&quot;", "2 &lt; 3 &amp;&amp; \"x\""),
    ])
    func construct(html: String, slack: String) {
        #expect(Self.converter.convert(html) == slack)
    }

    @Test("what an export writes reads back as the same Markdown")
    func roundTrip() {
        let back = SlackToMarkdown(person: { $0 == "U02BOB" ? "Bob" : nil }, channel: { _ in nil })
        let html = #"<strong>중요</strong>: <span class="mention" data-user="2">@Bob</span> <a href="https://example.com/wiki" rel="noopener noreferrer nofollow" target="_blank">위키</a> 2 &lt; 3"#
        #expect(back.convert(Self.converter.convert(html)) == "**중요**: @Bob [위키](https://example.com/wiki) 2 < 3")
    }
}
