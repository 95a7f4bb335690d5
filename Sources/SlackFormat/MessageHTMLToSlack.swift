/// A wsx message's HTML (what its Markdown rendered to: only `strong em del code pre
/// blockquote ul ol li br a span.mention`, text escaped) as Slack's markup, for exports:
/// `*bold*`, `_italic_`, `~strike~`, `` `code` ``, ```` ``` ```` blocks, `&gt; ` quotes, `• `
/// bullets, `<url|label>` links, `<#C…|name>` channel links and `<@U…>` / `<!here>` mentions, with `&`, `<`, `>` escaped as
/// Slack escapes them. Reading the rendered HTML rather than the Markdown source means the
/// export says what the message showed, with no second Markdown parser to keep in step.
public struct MessageHTMLToSlack: Sendable {
    /// The Slack id of a wsx user id, for mentions; nil writes the mention's text.
    public var slackUser: @Sendable (Int64) -> String?
    /// The Slack id of a wsx room id, for `#channel` links; nil writes the link's text.
    public var slackChannel: @Sendable (Int64) -> String?

    public init(slackUser: @escaping @Sendable (Int64) -> String?,
                slackChannel: @escaping @Sendable (Int64) -> String? = { _ in nil }) {
        self.slackUser = slackUser
        self.slackChannel = slackChannel
    }

    public func convert(_ html: String) -> String {
        var writer = Writer()
        var index = html.startIndex
        while index < html.endIndex {
            guard html[index] == "<", let close = html[index...].firstIndex(of: ">") else {
                let next = html[index...].firstIndex(of: "<") ?? html.endIndex
                writer.text(Self.decode(html[index..<next]))
                index = next
                continue
            }
            let tag = Tag(html[html.index(after: index)..<close])
            index = html.index(after: close)
            switch (tag.name, tag.closing) {
            case ("a", false):
                // The link's text runs to its `</a>`; it holds text only.
                let end = html.range(of: "</a>", range: index..<html.endIndex)
                let label = Self.decode(html[index..<(end?.lowerBound ?? html.endIndex)])
                if tag.attributes["class"] == "channel-ref" {
                    let channel = tag.attributes["data-room"].flatMap(Int64.init).flatMap(slackChannel)
                    writer.raw(channel.map { "<#\($0)|\(Self.escape(String(label.dropFirst())))>" } ?? Self.escape(label))
                } else {
                    let address = tag.attributes["href"] ?? label
                    writer.raw(label == address ? "<\(Self.escape(address))>" : "<\(Self.escape(address))|\(Self.escape(label))>")
                }
                index = end?.upperBound ?? html.endIndex
            case ("span", false) where tag.attributes["class"] == "mention":
                let end = html.range(of: "</span>", range: index..<html.endIndex)
                let shown = Self.decode(html[index..<(end?.lowerBound ?? html.endIndex)])
                writer.raw(mention(tag.attributes["data-user"] ?? "", shown: shown))
                index = end?.upperBound ?? html.endIndex
            default:
                writer.tag(tag)
            }
        }
        return writer.finish()
    }

    private func mention(_ target: String, shown: String) -> String {
        switch target {
        case "here": return "<!here>"
        case "channel": return "<!channel>"
        case "all": return "<!everyone>"
        default:
            if let id = Int64(target), let slack = slackUser(id) { return "<@\(slack)>" }
            return Self.escape(shown)
        }
    }

    /// Slack's own escaping of text: `&`, `<` and `>` only.
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }

    /// Our HTML escaping undone (`HTMLEscaping` writes these five).
    static func decode(_ html: Substring) -> String {
        guard html.contains("&") else { return String(html) }
        return html.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    /// One tag of our HTML: its name, whether it closes, its attributes (always double-quoted).
    struct Tag {
        let name: String
        let closing: Bool
        let attributes: [String: String]

        init(_ text: Substring) {
            closing = text.hasPrefix("/")
            let body = closing ? text.dropFirst() : text
            let parts = body.split(separator: " ", maxSplits: 1)
            name = String(parts.first ?? "")
            var attributes: [String: String] = [:]
            if parts.count == 2 {
                for match in parts[1].matches(of: /([a-z-]+)="([^"]*)"/) {
                    attributes[String(match.1)] = MessageHTMLToSlack.decode(match.2)
                }
            }
            self.attributes = attributes
        }
    }

    /// The text being written: where lines start (quotes prefix each with `&gt; `), the lists
    /// open, and whether a block ended (the next text starts a new line).
    private struct Writer {
        var out = ""
        var quoteDepth = 0
        var inCode = false
        var lists: [(ordered: Bool, next: Int)] = []
        var blockEnded = false

        mutating func text(_ plain: String) {
            guard !plain.isEmpty else { return }
            startContent()
            raw(MessageHTMLToSlack.escape(plain))
        }

        /// Text already in Slack's escaping; quote prefixes go after each line break in it.
        mutating func raw(_ slack: String) {
            startContent()
            if quoteDepth > 0, slack.contains("\n") {
                out += slack.replacingOccurrences(of: "\n", with: "\n&gt; ")
            } else {
                out += slack
            }
        }

        private mutating func startContent() {
            if blockEnded {
                blockEnded = false
                newLine()
            }
        }

        private mutating func newLine() {
            if !out.isEmpty, !out.hasSuffix("\n") { out += "\n" }
            if quoteDepth > 0, !inCode { out += "&gt; " }
        }

        mutating func tag(_ tag: Tag) {
            switch (tag.name, tag.closing) {
            case ("strong", _): raw("*")
            case ("em", _): raw("_")
            case ("del", _): raw("~")
            case ("code", _) where !inCode: raw("`")
            case ("pre", false):
                blockEnded = false
                newLine()
                out += "```"
                inCode = true
            case ("pre", true):
                out += "```"
                inCode = false
                blockEnded = true
            case ("br", _):
                raw("\n")
            case ("blockquote", false):
                blockEnded = false
                quoteDepth += 1
                newLine()
            case ("blockquote", true):
                quoteDepth -= 1
                blockEnded = true
            case ("ul", false), ("ol", false):
                blockEnded = false
                lists.append((tag.name == "ol", Int(tag.attributes["start"] ?? "") ?? 1))
            case ("ul", true), ("ol", true):
                _ = lists.popLast()
                blockEnded = true
            case ("li", false):
                blockEnded = false
                newLine()
                if let list = lists.last {
                    out += list.ordered ? "\(list.next). " : "• "
                    lists[lists.count - 1].next += 1
                }
            default:
                break
            }
        }

        func finish() -> String { out }
    }
}
