/// Turns what someone typed into the HTML of a message body: everything escaped, `http(s)://`
/// addresses made links (`rel="noopener noreferrer nofollow"`), and `@nickname` of a member
/// marked as a mention. Line breaks stay as text (the stylesheet keeps them).
///
/// One pass over the text, linear in its length: every character is looked at a bounded number
/// of times (an address is scanned once to its end and its closing brackets counted as it goes;
/// a mention looks at most `MentionDirectory.longest` characters ahead). The renderer before it
/// recounted brackets for every trailing `)`, and `"https://a" + ")" * 4990` took 936 ms.
public enum MessageHTML {
    /// The result: HTML, and who was mentioned (each once, in order of first mention).
    public struct Rendered: Equatable, Sendable {
        public let html: String
        public let mentioned: [Int64]
    }

    public static func render(_ text: String, members: MentionDirectory) -> Rendered {
        var html = ""
        html.reserveCapacity(text.utf8.count + 64)
        var mentioned: [Int64] = []
        var index = text.startIndex
        var plainStart = index
        // The character before `index`, for the "starts a word" rule.
        var previous: Character?

        func flushPlain(upTo end: String.Index) {
            if plainStart < end { html += HTMLEscaping.escape(text[plainStart..<end]) }
        }

        while index < text.endIndex {
            let character = text[index]
            let startsWord = previous.map(isBoundary) ?? true
            if character == "h", startsWord, let schemeEnd = schemeEnd(in: text, at: index) {
                let end = urlEnd(in: text, from: index)
                if schemeEnd < end {
                    flushPlain(upTo: index)
                    let escaped = HTMLEscaping.escape(text[index..<end])
                    html += #"<a href="\#(escaped)" rel="noopener noreferrer nofollow" target="_blank">\#(escaped)</a>"#
                    previous = text[text.index(before: end)]
                    index = end
                    plainStart = index
                    continue
                }
            }
            if character == "@", startsWord, let (nickname, id, end) = members.mention(in: text, after: text.index(after: index)) {
                flushPlain(upTo: index)
                html += #"<span class="mention" data-user="\#(id)">@\#(HTMLEscaping.escape(nickname))</span>"#
                if !mentioned.contains(id) { mentioned.append(id) }
                previous = text[text.index(before: end)]
                index = end
                plainStart = index
                continue
            }
            previous = character
            index = text.index(after: index)
        }
        flushPlain(upTo: text.endIndex)
        return Rendered(html: html, mentioned: mentioned)
    }

    /// A link or mention starts at the beginning or after whitespace or an opening bracket.
    static func isBoundary(_ previous: Character) -> Bool {
        previous.isWhitespace || "([{<\"'".contains(previous)
    }

    /// Where `http://` or `https://` starting at `index` ends, if one does.
    private static func schemeEnd(in text: String, at index: String.Index) -> String.Index? {
        let rest = text.utf8[index...]
        for scheme in ["https://", "http://"] where rest.starts(with: scheme.utf8) {
            return text.utf8.index(index, offsetBy: scheme.utf8.count)
        }
        return nil
    }

    /// Where an address ends: at whitespace or a quote/angle bracket, minus trailing punctuation
    /// that more likely ends the sentence (and closing brackets without their opening ones).
    /// Brackets are counted on the way out and adjusted on the way back, never recounted.
    private static func urlEnd(in text: String, from start: String.Index) -> String.Index {
        var end = start
        var opened = 0, closed = 0
        while end < text.endIndex {
            let character = text[end]
            if character.isWhitespace || "<>\"'".contains(character) { break }
            if character == "(" { opened += 1 } else if character == ")" { closed += 1 }
            end = text.index(after: end)
        }
        while end > start {
            let before = text.index(before: end)
            let last = text[before]
            if ".,;:!?".contains(last) {
                end = before
            } else if last == ")", opened < closed {
                closed -= 1
                end = before
            } else {
                break
            }
        }
        return end
    }
}

/// The nicknames a message may mention, looked up by what follows an `@`: at most as many
/// characters as the longest nickname are read, and only the lengths some nickname has are
/// tried, longest first (`@bobby` is Bobby, not Bob).
public struct MentionDirectory: Sendable {
    private let ids: [String: Int64]
    /// Lengths (in characters) nicknames have, longest first.
    private let lengths: [Int]

    public static let none = MentionDirectory([:])

    public init(_ nicknames: [String: Int64]) {
        ids = nicknames
        lengths = Set(nicknames.keys.map(\.count)).filter { $0 > 0 }.sorted(by: >)
    }

    /// The member mentioned by the text starting at `start` (just after an `@`), its id and
    /// where the mention ends.
    func mention(in text: String, after start: String.Index) -> (String, Int64, String.Index)? {
        guard let longest = lengths.first else { return nil }
        // ends[k] is the index after k + 1 characters.
        var ends: [String.Index] = []
        var index = start
        while ends.count < longest, index < text.endIndex {
            index = text.index(after: index)
            ends.append(index)
        }
        for length in lengths where length <= ends.count {
            let end = ends[length - 1]
            let candidate = String(text[start..<end])
            if let id = ids[candidate], Self.isMentionEnd(text, end) { return (candidate, id, end) }
        }
        return nil
    }

    /// A mention ends at the end, whitespace or punctuation (so `@민아님` is not `@민아`).
    private static func isMentionEnd(_ text: String, _ index: String.Index) -> Bool {
        guard index < text.endIndex else { return true }
        let next = text[index]
        return next.isWhitespace || (next.isPunctuation && next != "_" && next != "-") || next.isSymbol
    }
}
