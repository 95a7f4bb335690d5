import Foundation
import Views

/// Turns what someone typed into the HTML of a message body: everything escaped, `http(s)://`
/// addresses made links (`rel="noopener noreferrer nofollow"`), and `@nickname` of a member
/// marked as a mention. Line breaks stay as text (the stylesheet keeps them).
enum MessageText {
    static let limit = TextLimit(characters: 5000)

    /// The result: HTML, and who was mentioned.
    struct Rendered: Equatable, Sendable {
        let html: String
        let mentioned: [Int64]
    }

    /// Text as stored: NFC, `\r\n` as `\n`, control characters other than newline and tab
    /// removed, surrounding whitespace trimmed.
    static func clean(_ raw: String) -> String {
        let unified = raw.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        return String(String.UnicodeScalarView(unified.nfc.unicodeScalars.filter {
            $0 == "\n" || $0 == "\t" || !$0.isDisallowedInText
        })).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Renders `text`; `members` maps nicknames to user ids (mentions match the longest nickname).
    static func render(_ text: String, members: [String: Int64]) -> Rendered {
        var html = ""
        var mentioned: [Int64] = []
        let nicknames = members.keys.sorted { $0.count > $1.count }
        var index = text.startIndex
        var plainStart = index

        func flushPlain(upTo end: String.Index) {
            if plainStart < end { html += HTMLEscaping.escape(text[plainStart..<end]) }
        }

        while index < text.endIndex {
            let rest = text[index...]
            if (rest.hasPrefix("http://") || rest.hasPrefix("https://")), isBoundary(before: index, in: text) {
                let end = urlEnd(in: text, from: index)
                let url = String(text[index..<end])
                if url.count > (rest.hasPrefix("https://") ? 8 : 7) {
                    flushPlain(upTo: index)
                    let escaped = HTMLEscaping.escape(url)
                    html += #"<a href="\#(escaped)" rel="noopener noreferrer nofollow" target="_blank">\#(escaped)</a>"#
                    index = end
                    plainStart = index
                    continue
                }
            }
            if text[index] == "@", isBoundary(before: index, in: text) {
                let after = text.index(after: index)
                if let nickname = nicknames.first(where: { text[after...].hasPrefix($0) && isMentionEnd(text, text.index(after, offsetBy: $0.count)) }),
                   let id = members[nickname] {
                    flushPlain(upTo: index)
                    html += #"<span class="mention" data-user="\#(id)">@\#(HTMLEscaping.escape(nickname))</span>"#
                    if !mentioned.contains(id) { mentioned.append(id) }
                    index = text.index(after, offsetBy: nickname.count)
                    plainStart = index
                    continue
                }
            }
            index = text.index(after: index)
        }
        flushPlain(upTo: text.endIndex)
        return Rendered(html: html, mentioned: mentioned)
    }

    /// The first characters of a message as plain text, for notifications.
    static func snippet(_ text: String, length: Int = 140) -> String {
        let flat = text.replacingOccurrences(of: "\n", with: " ")
        return flat.count <= length ? flat : String(flat.prefix(length - 1)) + "…"
    }

    /// A link or mention starts at the beginning or after whitespace or an opening bracket.
    private static func isBoundary(before index: String.Index, in text: String) -> Bool {
        guard index > text.startIndex else { return true }
        let previous = text[text.index(before: index)]
        return previous.isWhitespace || "([{<\"'".contains(previous)
    }

    /// A mention ends at the end, whitespace or punctuation (so `@민아님` is not `@민아`).
    private static func isMentionEnd(_ text: String, _ index: String.Index) -> Bool {
        guard index < text.endIndex else { return true }
        let next = text[index]
        return next.isWhitespace || (next.isPunctuation && next != "_" && next != "-") || next.isSymbol
    }

    /// Where an address ends: at whitespace or a quote/angle bracket, minus trailing punctuation
    /// that more likely ends the sentence (and a closing bracket without its opening one).
    private static func urlEnd(in text: String, from start: String.Index) -> String.Index {
        var end = start
        while end < text.endIndex, !text[end].isWhitespace, !"<>\"'".contains(text[end]) {
            end = text.index(after: end)
        }
        while end > start {
            let last = text[text.index(before: end)]
            if ".,;:!?".contains(last) {
                end = text.index(before: end)
            } else if last == ")", text[start..<end].filter({ $0 == "(" }).count < text[start..<end].filter({ $0 == ")" }).count {
                end = text.index(before: end)
            } else {
                break
            }
        }
        return end
    }
}
