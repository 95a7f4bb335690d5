/// Slack's message markup ("mrkdwn") as wsx's Markdown, in one pass over the text:
/// - `<@U…>` → `@nickname`, `<#C…|name>` → `#name`, `<!here>` `<!channel>` `<!everyone>` →
///   `@here` `@channel` `@all`, `<url|text>` → `[text](url)`, `<url>` → `url`;
/// - `*bold*` → `**bold**`, `_italic_` stays, `~strike~` → `~~strike~~`; code spans and
///   ```` ``` ```` blocks (which Slack also writes inline) become fenced blocks on their own lines;
/// - `&lt;` `&gt;` `&amp;` are unescaped, `• ` bullets become `- `, and `:shortcode:` emoji
///   become the emoji when `emoji` knows them;
/// - anything else wsx's Markdown would read as markup (a lone `*`, `[…](`…, `\*`) is escaped,
///   so the text shows as it did in Slack.
///
/// Linear in the text: every search for a closing marker, `>` or fence moves forward only.
public struct SlackToMarkdown: Sendable {
    /// The nickname of a Slack user id, the name of a Slack channel id, the emoji of a
    /// shortcode; nil when unknown.
    public var person: @Sendable (String) -> String?
    public var channel: @Sendable (String) -> String?
    public var emoji: @Sendable (String) -> String?

    public init(person: @escaping @Sendable (String) -> String?, channel: @escaping @Sendable (String) -> String?,
                emoji: @escaping @Sendable (String) -> String? = { _ in nil }) {
        (self.person, self.channel, self.emoji) = (person, channel, emoji)
    }

    public func convert(_ text: String) -> String {
        var scan = Scan(Array(text))
        return scan.run(self)
    }

    /// What one `<…>` holds, as our Markdown. `bareLinks`: whether an address written bare
    /// there would link exactly itself (it starts a word and ends before a space); else it is
    /// written `[address](address)`, so `<https://x.org>에` does not link `https://x.org에`.
    func token(_ content: String, bareLinks: Bool = true) -> String {
        let (target, label) = Self.split(content)
        if target.hasPrefix("@") {
            let id = String(target.dropFirst())
            return "@" + (person(id) ?? label.map { $0.hasPrefix("@") ? String($0.dropFirst()) : $0 } ?? id)
        }
        if target.hasPrefix("#") {
            let id = String(target.dropFirst())
            return "#" + (channel(id) ?? label ?? id)
        }
        if target.hasPrefix("!") {
            switch target {
            case "!here": return "@here"
            case "!channel": return "@channel"
            case "!everyone": return "@all"
            default: return label ?? ""
            }
        }
        if target.hasPrefix("http://") || target.hasPrefix("https://") {
            guard let label, label != target else {
                return bareLinks || !Self.fitsLink(target) ? target : "[\(target)](\(target))"
            }
            let shown = label.replacingOccurrences(of: "[", with: "(").replacingOccurrences(of: "]", with: ")")
                .replacingOccurrences(of: "\n", with: " ")
            return Self.fitsLink(target) ? "[\(shown)](\(target))" : "\(shown) (\(target))"
        }
        if target.hasPrefix("mailto:") { return label ?? String(target.dropFirst(7)) }
        return label ?? target
    }

    /// The target and the label of a token (`target|label`), entities unescaped.
    private static func split(_ content: String) -> (String, String?) {
        guard let bar = content.firstIndex(of: "|") else { return (unescape(content), nil) }
        let label = unescape(String(content[content.index(after: bar)...]))
        return (unescape(String(content[..<bar])), label.isEmpty ? nil : label)
    }

    /// Whether wsx's `[label](address)` can hold this address (no spaces, quotes or brackets,
    /// round brackets balanced).
    private static func fitsLink(_ address: String) -> Bool {
        var depth = 0
        for character in address {
            if character.isWhitespace || "<>\"'`[]".contains(character) { return false }
            if character == "(" { depth += 1 }
            if character == ")" { depth -= 1; if depth < 0 { return false } }
        }
        return depth == 0
    }

    public static func unescape(_ text: String) -> String {
        guard text.contains("&") else { return text }
        return text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}

/// The pass itself: positions of closers found ahead of time, then one walk over the text.
private struct Scan {
    let chars: [Character]
    /// Where each line ends (the index of its `\n`, or the end).
    private var lineEnd: [Int]
    /// For each `<`, its `>` (Slack writes a literal `>` as `&gt;`, so the next one closes it).
    private var tokenEnd: [Int: Int] = [:]
    /// Closing positions of `*`, `_`, `~` runs as Slack reads them, in order, with a cursor each.
    private var closers: [Character: [Int]] = [:]
    private var cursors: [Character: Int] = [:]
    /// Where each ```` ``` ```` starts, with a cursor; and each `](`.
    private var fences: [Int] = []
    private var fenceCursor = 0
    private var labelClosers: [Int] = []
    private var labelCursor = 0

    init(_ chars: [Character]) {
        self.chars = chars
        lineEnd = Array(repeating: chars.count, count: chars.count + 1)
        var end = chars.count
        for index in stride(from: chars.count - 1, through: 0, by: -1) {
            if chars[index] == "\n" { end = index }
            lineEnd[index] = end
        }
        var index = 0
        var openToken: Int?
        while index < chars.count {
            let character = chars[index]
            if character == "<" { openToken = index }
            if character == ">", let open = openToken { tokenEnd[open] = index; openToken = nil }
            if character == "\n" { openToken = nil }
            if character == "`", index + 2 < chars.count, chars[index + 1] == "`", chars[index + 2] == "`" {
                fences.append(index)
                index += 3
                continue
            }
            if character == "]", index + 1 < chars.count, chars[index + 1] == "(" { labelClosers.append(index) }
            if "*_~".contains(character), openToken == nil, Self.closes(chars, at: index) {
                closers[character, default: []].append(index)
            }
            index += 1
        }
    }

    /// Slack's closing marker: a single one after a non-space, before the end, a space or punctuation.
    private static func closes(_ chars: [Character], at index: Int) -> Bool {
        guard index > 0, !chars[index - 1].isWhitespace, !doubled(chars, at: index) else { return false }
        return index + 1 == chars.count || isBoundary(chars[index + 1])
    }

    /// Slack's opening marker: a single one at the start or after a space or punctuation, before a non-space.
    private func opens(at index: Int) -> Bool {
        guard index + 1 < chars.count, !chars[index + 1].isWhitespace, !Self.doubled(chars, at: index) else { return false }
        return index == 0 || Self.isBoundary(chars[index - 1])
    }

    /// Whether the marker at `index` has the same marker beside it (`**`, `~~`: text in Slack).
    private static func doubled(_ chars: [Character], at index: Int) -> Bool {
        (index > 0 && chars[index - 1] == chars[index]) || (index + 1 < chars.count && chars[index + 1] == chars[index])
    }

    /// What may stand beside a marker: a space, punctuation, or (as wsx's Markdown allows, and
    /// so a Korean text exported from here reads back the same) a Hangul, Han or kana letter,
    /// which Korean particles follow without a space (`*중요*합니다`).
    private static func isBoundary(_ character: Character) -> Bool {
        character.isWhitespace || (character.isPunctuation && character != "_") || character.isSymbol || isCJK(character)
    }

    private static func isCJK(_ character: Character) -> Bool {
        guard let scalar = character.unicodeScalars.first?.value else { return false }
        switch scalar {
        case 0x1100...0x11FF, 0x3040...0x30FF, 0x3130...0x318F, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xAC00...0xD7AF: return true
        default: return false
        }
    }

    /// The closer on the same line for an opener at `index`, if there is one.
    private mutating func closer(of marker: Character, after index: Int) -> Int? {
        guard let list = closers[marker] else { return nil }
        var cursor = cursors[marker] ?? 0
        while cursor < list.count, list[cursor] <= index + 1 { cursor += 1 }
        cursors[marker] = cursor
        guard cursor < list.count, list[cursor] < lineEnd[index] else { return nil }
        return list[cursor]
    }

    private mutating func nextFence(after index: Int) -> Int? {
        while fenceCursor < fences.count, fences[fenceCursor] <= index { fenceCursor += 1 }
        return fenceCursor < fences.count ? fences[fenceCursor] : nil
    }

    /// Whether a `](` follows on this line (a `[` there could start a link in our Markdown).
    private mutating func labelCloserAhead(of index: Int) -> Bool {
        while labelCursor < labelClosers.count, labelClosers[labelCursor] <= index { labelCursor += 1 }
        return labelCursor < labelClosers.count && labelClosers[labelCursor] < lineEnd[index]
    }

    mutating func run(_ converter: SlackToMarkdown) -> String {
        var out = ""
        /// Closing markers planned at positions ahead, with what to write there.
        var closing: [Int: String] = [:]
        var index = 0
        func atLineStart() -> Bool { out.isEmpty || out.hasSuffix("\n") }
        while index < chars.count {
            if let marker = closing.removeValue(forKey: index) {
                out += marker
                index += 1
                continue
            }
            let character = chars[index]
            switch character {
            case "`":
                if index + 2 < chars.count, chars[index + 1] == "`", chars[index + 2] == "`" {
                    guard let end = nextFence(after: index) else {
                        out += "\\`\\`\\`"
                        index += 3
                        continue
                    }
                    var code = SlackToMarkdown.unescape(String(chars[(index + 3)..<end]))
                    if code.hasPrefix("\n") { code.removeFirst() }
                    if code.hasSuffix("\n") { code.removeLast() }
                    if !atLineStart() { out += "\n" }
                    out += "```\n" + code + "\n```"
                    index = end + 3
                    if index < chars.count, chars[index] != "\n" { out += "\n" }
                    continue
                }
                if let end = chars[(index + 1)..<lineEnd[index]].firstIndex(of: "`"), end > index + 1 {
                    out += "`" + SlackToMarkdown.unescape(String(chars[(index + 1)..<end])) + "`"
                    index = end + 1
                } else {
                    out += "\\`"
                    index += 1
                }
                continue
            case "<":
                if let end = tokenEnd[index] {
                    let startsWord = out.last.map { $0.isWhitespace || "([{<\"'*_~".contains($0) } ?? true
                    let endsWord = end + 1 == chars.count || chars[end + 1].isWhitespace
                    out += converter.token(String(chars[(index + 1)..<end]), bareLinks: startsWord && endsWord)
                    index = end + 1
                    continue
                }
            case "*", "_", "~":
                if opens(at: index), let end = closer(of: character, after: index) {
                    let marker = character == "*" ? "**" : character == "~" ? "~~" : "_"
                    out += marker
                    closing[end] = marker
                    index += 1
                    continue
                }
                let intraword = character == "_" && index > 0 && index + 1 < chars.count
                    && (chars[index - 1].isLetter || chars[index - 1].isNumber) && (chars[index + 1].isLetter || chars[index + 1].isNumber)
                let lone = character == "~" && !(index + 1 < chars.count && chars[index + 1] == "~")
                    && !(index > 0 && chars[index - 1] == "~")
                out += intraword || lone ? String(character) : "\\" + String(character)
                index += 1
                continue
            case "&":
                if let (entity, plain) = [("&lt;", "<"), ("&gt;", ">"), ("&amp;", "&")]
                    .first(where: { chars[index...].starts(with: $0.0) }) {
                    out += plain
                    index += entity.count
                    continue
                }
            case "\\":
                if index + 1 < chars.count, Self.isASCIIPunctuation(chars[index + 1]) {
                    out += "\\\\"
                    index += 1
                    continue
                }
            case "[":
                if labelCloserAhead(of: index) {
                    out += "\\["
                    index += 1
                    continue
                }
            case "•" where atLineStart() && index + 1 < chars.count && chars[index + 1] == " ",
                 "◦" where atLineStart() && index + 1 < chars.count && chars[index + 1] == " ":
                out += character == "•" ? "-" : "  -"
                index += 1
                continue
            case ":":
                if let end = chars[(index + 1)..<min(lineEnd[index], index + 80)].firstIndex(of: ":"), end > index + 1 {
                    var name = String(chars[(index + 1)..<end])
                    var after = end + 1
                    // A skin tone follows as a second code: `:+1::skin-tone-3:`.
                    if after < chars.count, chars[after] == ":",
                       let toneEnd = chars[(after + 1)..<min(lineEnd[index], after + 20)].firstIndex(of: ":"),
                       String(chars[(after + 1)..<toneEnd]).hasPrefix("skin-tone-") {
                        name += "::" + String(chars[(after + 1)..<toneEnd])
                        after = toneEnd + 1
                    }
                    if name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "_+-:".contains($0)) }),
                       let emoji = converter.emoji(name) {
                        out += emoji
                        index = after
                        continue
                    }
                }
            default:
                break
            }
            out.append(character)
            index += 1
        }
        return out
    }

    private static func isASCIIPunctuation(_ character: Character) -> Bool {
        guard let value = character.asciiValue else { return false }
        return (0x21...0x2F).contains(value) || (0x3A...0x40).contains(value) || (0x5B...0x60).contains(value)
            || (0x7B...0x7E).contains(value)
    }
}
