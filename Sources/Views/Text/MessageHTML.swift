/// Turns what someone typed into the HTML of a message body, from a Markdown subset: blocks
/// (fenced code with an optional language, `>` quotes, `-`/`*` and `1.` lists, lines kept as
/// `<br>`) by `MarkdownBlocks`, and inside them code spans, `**strong**`, `*em*`/`_em_`,
/// `~~del~~`, `http(s)://` links (`rel="noopener noreferrer nofollow"`), `@nickname`
/// mentions of members and `#channel` links to public channels by `MarkdownInline`. Raw HTML
/// is text: everything is escaped, and the output uses only `MessageHTML.allowedTags`.
///
/// Rendered once per post, before the write transaction, in time linear in the text's length
/// (a fuzz target with a per-input time limit holds it to that).
public enum MessageHTML {
    /// The result: HTML, the text without its markup (what search indexes), who was
    /// mentioned (each once, in order of first mention), and which groups (`@here`,
    /// `@channel`, `@all`).
    public struct Rendered: Equatable, Sendable {
        public let html: String
        public let plain: String
        public let mentioned: [Int64]
        public var groups: Set<MentionGroup> = []
    }

    /// Every tag the HTML may contain, with the attributes each may carry.
    public static let allowedTags: [String: Set<String>] = [
        "strong": [], "em": [], "del": [], "code": [], "pre": ["data-lang"], "blockquote": [], "ul": [], "ol": ["start"],
        "li": [], "br": [], "a": ["href", "rel", "target", "class", "data-room"], "span": ["class", "data-user"],
    ]

    /// `channels`: the public channels `#name` links to (none by default).
    public static func render(_ text: String, members: MentionDirectory, channels: ChannelDirectory = .none) -> Rendered {
        var inline = MarkdownInline(members: members, channels: channels)
        let (html, plain) = MarkdownBlocks.render(Array(text), inline: &inline)
        return Rendered(html: html, plain: plain, mentioned: inline.mentioned, groups: inline.groups)
    }
}

/// `http://` and `https://` addresses in text, found in one pass.
enum MessageLinks {
    /// Where the address starting at `start` ends, if one starts there: at whitespace or a
    /// quote/angle bracket, minus trailing punctuation that more likely ends the sentence (and
    /// Markdown markers, and closing brackets without their opening ones). Brackets are counted
    /// on the way out and adjusted on the way back, never recounted.
    static func linkEnd(_ chars: ArraySlice<Character>, at start: Int) -> Int? {
        var schemeEnd: Int?
        for scheme in ["https://", "http://"] where chars[start...].starts(with: scheme) {
            schemeEnd = start + scheme.count
            break
        }
        guard let schemeEnd else { return nil }
        var end = start
        var opened = 0, closed = 0
        while end < chars.endIndex {
            let character = chars[end]
            if character.isWhitespace || "<>\"'`".contains(character) { break }
            if character == "(" { opened += 1 } else if character == ")" { closed += 1 }
            end += 1
        }
        while end > start {
            let last = chars[end - 1]
            if ".,;:!?*_~".contains(last) {
                end -= 1
            } else if last == ")", opened < closed {
                closed -= 1
                end -= 1
            } else {
                break
            }
        }
        return end > schemeEnd ? end : nil
    }
}
