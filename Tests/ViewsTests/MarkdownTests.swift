import Foundation
import Testing
@testable import Views

/// Messages in Markdown: each construct, Korean around the markers, and the CommonMark spec's
/// own examples (nothing outside the allowed tags comes out; emphasis and code spans come out
/// as the spec says).
@Suite("Message Markdown")
struct MarkdownTests {
    static let members = MentionDirectory(["박지수": 1, "Bob": 2])
    static let channels = ChannelDirectory(["개발": .init(roomId: 5, href: "/w/1/c/5"), "Design-Team": .init(roomId: 6, href: "/w/1/c/6"),
                                            "foo": .init(roomId: 7, href: "/w/1/c/7")])

    static func html(_ text: String) -> String { MessageHTML.render(text, members: members, channels: channels).html }

    static func channelLink(_ room: Int64, _ shown: String) -> String {
        #"<a class="channel-ref" href="/w/1/c/\#(room)" data-room="\#(room)">#\#(shown)</a>"#
    }

    @Test("each construct", arguments: [
        ("**bold** and *italic* and _italic_", "<strong>bold</strong> and <em>italic</em> and <em>italic</em>"),
        ("~~gone~~ but 3~5일 stays", "<del>gone</del> but 3~5일 stays"),
        ("`**not bold**` and ``a`b``", "<code>**not bold**</code> and <code>a`b</code>"),
        ("line one\nline two\n\nafter a blank", "line one<br>line two<br><br>after a blank"),
        ("> quoted\n> still quoted\nnot quoted", "<blockquote>quoted<br>still quoted</blockquote>not quoted"),
        ("- one\n- **two**\n  more of two\n* new list", "<ul><li>one</li><li><strong>two</strong><br>more of two</li></ul><ul><li>new list</li></ul>"),
        ("3. three\n4. four", #"<ol start="3"><li>three</li><li>four</li></ol>"#),
        ("1) a\n2) b", "<ol><li>a</li><li>b</li></ol>"),
        ("```swift\nlet a = \"<b>\" // https://x.org **no**\n```\nafter",
         #"<pre data-lang="swift"><code>let a = &quot;&lt;b&gt;&quot; // https://x.org **no**</code></pre>after"#),
        ("```\nunclosed\n\nstill code", "<pre><code>unclosed\n\nstill code</code></pre>"),
        ("``` 예시 <코드>\nx\n```", #"<pre data-lang="예시 &lt;코드&gt;"><code>x</code></pre>"#),
        ("<b>raw</b> &amp; <script>", "&lt;b&gt;raw&lt;/b&gt; &amp;amp; &lt;script&gt;"),
        (#"\*not em\* and \_not\_"#, "*not em* and _not_"),
        ("**https://example.com/a_b**", #"<strong><a href="https://example.com/a_b" rel="noopener noreferrer nofollow" target="_blank">https://example.com/a_b</a></strong>"#),
        ("**@박지수** 확인", #"<strong><span class="mention" data-user="1">@박지수</span></strong> 확인"#),
        ("***both***", "<em><strong>both</strong></em>"),
        ("*foo**bar**baz*", "<em>foo<strong>bar</strong>baz</em>"),
        ("snake_case_name and 2*3*4", "snake_case_name and 2<em>3</em>4"),
        ("**unclosed and *half", "**unclosed and *half"),
        ("see [the wiki](https://example.com/wiki) now",
         #"see <a href="https://example.com/wiki" rel="noopener noreferrer nofollow" target="_blank">the wiki</a> now"#),
        ("**[위키](https://ko.wikipedia.org/wiki/Foo_(bar))**를 보세요",
         #"<strong><a href="https://ko.wikipedia.org/wiki/Foo_(bar)" rel="noopener noreferrer nofollow" target="_blank">위키</a></strong>를 보세요"#),
        ("[a <b>](https://x.org)", #"<a href="https://x.org" rel="noopener noreferrer nofollow" target="_blank">a &lt;b&gt;</a>"#),
        ("[no](javascript:alert(1)) [] (x) [two\nlines](x)", "[no](javascript:alert(1)) [] (x) [two<br>lines](x)"),
    ])
    func construct(text: String, expected: String) {
        #expect(Self.html(text) == expected)
    }

    @Test("Korean around the markers formats, where CommonMark's rules alone would not", arguments: [
        ("**중요**합니다", "<strong>중요</strong>합니다"),
        (#"**"공지"**는 내일"#, "<strong>&quot;공지&quot;</strong>는 내일"),
        ("_참고_로 보세요", "<em>참고</em>로 보세요"),
        ("*강조*를 넣었어요", "<em>강조</em>를 넣었어요"),
        ("**(필수)**입니다", "<strong>(필수)</strong>입니다"),
        ("~~취소~~된 회의", "<del>취소</del>된 회의"),
        ("「**회의록**」을 봤어요", "「<strong>회의록</strong>」을 봤어요"),
        ("**中文**的", "<strong>中文</strong>的"),
    ])
    func korean(text: String, expected: String) {
        #expect(Self.html(text) == expected)
    }

    @Test("#name links a public channel by its name, as typed, Korean particles after it; nothing else is a link", arguments: [
        ("#개발 봐주세요", channelLink(5, "개발") + " 봐주세요"),
        ("자세한 건 #개발에서, 디자인은 #design-team.", "자세한 건 " + channelLink(5, "개발") + "에서, 디자인은 " + channelLink(6, "design-team") + "."),
        ("**#개발**", "<strong>" + channelLink(5, "개발") + "</strong>"),
        ("(#foo)", "(" + channelLink(7, "foo") + ")"),
        ("#food #design #없는채널 C#foo ##foo", "#food #design #없는채널 C#foo ##foo"),
        ("`#개발` https://example.com/#개발", #"<code>#개발</code> <a href="https://example.com/#개발" rel="noopener noreferrer nofollow" target="_blank">https://example.com/#개발</a>"#),
        ("\\#개발", "#개발"),
    ])
    func channelReferences(text: String, expected: String) {
        #expect(Self.html(text) == expected)
    }

    @Test("without the channel directory a #name is text; search reads it as typed")
    func channelReferenceText() {
        #expect(MessageHTML.render("#개발 봐주세요", members: Self.members).html == "#개발 봐주세요")
        #expect(MessageHTML.render("#개발에서 봐요", members: Self.members, channels: Self.channels).plain == "#개발에서 봐요")
    }

    @Test("search reads the words, not the markup; editing keeps the source")
    func plainText() {
        let rendered = MessageHTML.render("**중요** 공지: `코드`\n- 첫째\n> 인용", members: Self.members)
        #expect(rendered.plain == "중요 공지: 코드\n첫째\n인용")
    }

    // MARK: The CommonMark spec's examples

    struct Example: Decodable {
        let section: String
        let markdown: String
        let html: String
    }

    static let examples: [Example] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/commonmark-examples.json")
        return (try? JSONDecoder().decode([Example].self, from: Data(contentsOf: url))) ?? []
    }()

    @Test("every spec example of the constructs renders into the allowed tags and attributes only")
    func onlyAllowedMarkup() throws {
        #expect(Self.examples.count > 300)
        let tag = /<(\/?)([a-zA-Z0-9]+)((?:\s+[a-z-]+="[^"]*")*)\s*>/
        for example in Self.examples {
            let html = Self.html(example.markdown)
            var rest = Substring(html)
            // Every `<` starts one of our tags: user text is escaped.
            #expect(html.filter { $0 == "<" }.count == html.matches(of: tag).count, "\(example.markdown.debugDescription) -> \(html)")
            while let match = rest.firstMatch(of: tag) {
                let name = String(match.2)
                let allowed = MessageHTML.allowedTags[name]
                #expect(allowed != nil, "<\(name)> from \(example.markdown.debugDescription)")
                for attribute in match.3.matches(of: /\s([a-z-]+)="[^"]*"/) {
                    #expect(allowed?.contains(String(attribute.1)) == true, "\(name) \(attribute.1) from \(example.markdown.debugDescription)")
                }
                rest = rest[match.range.upperBound...]
            }
        }
    }

    /// The spec's HTML as a message shows it: no paragraphs, line breaks as `<br>`.
    static func asMessage(_ html: String) -> String {
        html.replacingOccurrences(of: "<p>", with: "").replacingOccurrences(of: "</p>\n", with: "<br><br>")
            .replacingOccurrences(of: "</p>", with: "").replacingOccurrences(of: "\n", with: "<br>")
            .replacingOccurrences(of: "<br><br>$", with: "", options: .regularExpression)
    }

    @Test("emphasis and code spans come out as the spec says (examples of constructs messages have)")
    func emphasisAsTheSpecSays() {
        // Links, images, raw HTML, entities and hard breaks are not message Markdown.
        let chosen = Self.examples.filter { example in
            ["Emphasis and strong emphasis", "Code spans"].contains(example.section)
                && !example.markdown.contains(where: { "[<&\\!".contains($0) }) && !example.markdown.contains("http")
                && !example.markdown.hasPrefix(" ") && !example.markdown.contains("\n\n")
        }
        #expect(chosen.count > 100)
        var differing: [String] = []
        for example in chosen where Self.html(example.markdown) != Self.asMessage(example.html) {
            differing.append("\(example.markdown.debugDescription): \(Self.html(example.markdown)) vs \(Self.asMessage(example.html))")
        }
        #expect(differing.isEmpty, "\(differing.joined(separator: "\n"))")
    }
}
