/// The block part of a message's Markdown, one pass over its lines: fenced code (```` ``` ````,
/// an optional language shown as a label, never formatted or linked), `>` quotes, lists (`-`,
/// `*` or `+` bullets; `1.` or `1)` numbers, starting where the first one says), and everything
/// else as text whose line breaks are kept (`<br>`). No HTML line breaks are written between
/// blocks, so the message body may keep `white-space: pre-wrap` for the spaces people type.
enum MarkdownBlocks {
    private enum Block {
        case text([Range<Int>])
        case quote([Range<Int>])
        case list(ordered: Bool, start: Int, items: [[Range<Int>]])
        case code(language: String?, lines: [Range<Int>])
        case blank
    }

    static func render(_ chars: [Character], inline: inout MarkdownInline) -> (html: String, plain: String) {
        var html = "", plain = ""
        var previousWasText = false
        var pendingBlanks = 0
        for block in blocks(chars) {
            switch block {
            case .blank:
                pendingBlanks += 1
                continue
            case .text(let lines):
                // Text after text keeps the empty lines between them; blocks keep their own margins.
                if previousWasText {
                    html += String(repeating: "<br>", count: pendingBlanks + 1)
                    plain += String(repeating: "\n", count: pendingBlanks + 1)
                }
                let rendered = inline.render(joined(chars, lines))
                html += rendered.html
                plain += rendered.plain
            case .quote(let lines):
                let rendered = inline.render(joined(chars, lines))
                html += "<blockquote>\(rendered.html)</blockquote>"
                plain += separator(plain) + rendered.plain
            case .list(let ordered, let start, let items):
                html += ordered ? (start == 1 ? "<ol>" : #"<ol start="\#(start)">"#) : "<ul>"
                for item in items {
                    let rendered = inline.render(joined(chars, item))
                    html += "<li>\(rendered.html)</li>"
                    plain += separator(plain) + rendered.plain
                }
                html += ordered ? "</ol>" : "</ul>"
            case .code(let language, let lines):
                let code = lines.map { String(chars[$0]) }.joined(separator: "\n")
                let label = language.map { #" data-lang="\#(HTMLEscaping.escape($0))""# } ?? ""
                html += "<pre\(label)><code>\(HTMLEscaping.escape(code))</code></pre>"
                plain += separator(plain) + code
            }
            if case .text = block { previousWasText = true } else { previousWasText = false }
            pendingBlanks = 0
        }
        return (html, plain)
    }

    private static func separator(_ plain: String) -> String { plain.isEmpty ? "" : "\n" }

    /// The lines' characters with a line break between each two (a fresh array: lines of a
    /// quote or list item are not contiguous once their markers are left out).
    private static func joined(_ chars: [Character], _ lines: [Range<Int>]) -> ArraySlice<Character> {
        guard lines.count > 1 else { return lines.first.map { chars[$0] } ?? [] }
        var joined: [Character] = []
        for (number, line) in lines.enumerated() {
            if number > 0 { joined.append("\n") }
            joined.append(contentsOf: chars[line])
        }
        return joined[...]
    }

    // MARK: Lines to blocks

    private static func blocks(_ chars: [Character]) -> [Block] {
        var lines: [Range<Int>] = []
        var lineStart = 0
        for (index, character) in chars.enumerated() where character == "\n" {
            lines.append(lineStart..<index)
            lineStart = index + 1
        }
        lines.append(lineStart..<chars.count)

        var blocks: [Block] = []
        var number = 0
        while number < lines.count {
            let line = lines[number]
            let body = indentEnd(chars, line)
            if body == line.upperBound || chars[body..<line.upperBound].allSatisfy(\.isWhitespace) {
                blocks.append(.blank)
                number += 1
            } else if let (fence, language) = fenceOpening(chars, line) {
                var code: [Range<Int>] = []
                number += 1
                while number < lines.count, !isFenceClosing(chars, lines[number], length: fence) {
                    code.append(lines[number])
                    number += 1
                }
                number += 1 // the closing fence, if there was one
                blocks.append(.code(language: language, lines: code))
            } else if quoteContent(chars, line) != nil {
                var quoted: [Range<Int>] = []
                while number < lines.count, let content = quoteContent(chars, lines[number]) {
                    quoted.append(content)
                    number += 1
                }
                blocks.append(.quote(quoted))
            } else if let first = listItem(chars, line) {
                var items: [[Range<Int>]] = [[first.content]]
                number += 1
                while number < lines.count {
                    let next = lines[number]
                    if let item = listItem(chars, next), item.marker == first.marker {
                        items.append([item.content])
                    } else if indentEnd(chars, next) - next.lowerBound >= 2, indentEnd(chars, next) < next.upperBound,
                              listItem(chars, next) == nil {
                        // An indented line continues the item above it.
                        items[items.count - 1].append(indentEnd(chars, next)..<next.upperBound)
                    } else {
                        break
                    }
                    number += 1
                }
                blocks.append(.list(ordered: first.marker != "-" && first.marker != "*" && first.marker != "+",
                                    start: first.start, items: items))
            } else {
                var text: [Range<Int>] = [line]
                number += 1
                while number < lines.count, isPlainText(chars, lines[number]) {
                    text.append(lines[number])
                    number += 1
                }
                blocks.append(.text(text))
            }
        }
        return blocks
    }

    /// Where a line's text starts after up to three spaces (four or more are kept as text).
    private static func indentEnd(_ chars: [Character], _ line: Range<Int>) -> Int {
        var index = line.lowerBound
        while index < line.upperBound, chars[index] == " " || chars[index] == "\t" { index += 1 }
        return index
    }

    /// A line that neither starts a block nor is blank.
    private static func isPlainText(_ chars: [Character], _ line: Range<Int>) -> Bool {
        let body = indentEnd(chars, line)
        if body == line.upperBound || chars[body..<line.upperBound].allSatisfy(\.isWhitespace) { return false }
        return quoteContent(chars, line) == nil && fenceOpening(chars, line) == nil && listItem(chars, line) == nil
    }

    /// A line of three or more backticks, then an optional language (any text up to 40
    /// characters, shown as the block's label): the fence's length and the label.
    private static func fenceOpening(_ chars: [Character], _ line: Range<Int>) -> (Int, String?)? {
        let body = indentEnd(chars, line)
        guard body - line.lowerBound <= 3 else { return nil }
        var index = body
        while index < line.upperBound, chars[index] == "`" { index += 1 }
        let length = index - body
        guard length >= 3 else { return nil }
        let info = String(chars[index..<line.upperBound]).trimmingCharacters(in: .whitespaces)
        guard !info.contains("`"), info.count <= 40 else { return nil }
        return (length, info.isEmpty ? nil : info)
    }

    private static func isFenceClosing(_ chars: [Character], _ line: Range<Int>, length: Int) -> Bool {
        let body = indentEnd(chars, line)
        guard body - line.lowerBound <= 3 else { return false }
        var index = body
        while index < line.upperBound, chars[index] == "`" { index += 1 }
        return index - body >= length && chars[index..<line.upperBound].allSatisfy(\.isWhitespace)
    }

    /// A `>` line's text, after the marker and one space.
    private static func quoteContent(_ chars: [Character], _ line: Range<Int>) -> Range<Int>? {
        let body = indentEnd(chars, line)
        guard body - line.lowerBound <= 3, body < line.upperBound, chars[body] == ">" else { return nil }
        var start = body + 1
        if start < line.upperBound, chars[start] == " " { start += 1 }
        return start..<line.upperBound
    }

    private struct ListItem: Equatable {
        /// `-`, `*` or `+`, or `.` or `)` after a number: a list goes on while its marker does.
        let marker: Character
        let start: Int
        let content: Range<Int>
    }

    /// A list item's line: a bullet or a number of up to nine digits with `.` or `)`, then a
    /// space, then text.
    private static func listItem(_ chars: [Character], _ line: Range<Int>) -> ListItem? {
        let body = indentEnd(chars, line)
        guard body < line.upperBound else { return nil }
        var index = body
        let marker: Character
        var start = 1
        if "-*+".contains(chars[index]) {
            marker = chars[index]
            index += 1
        } else {
            while index < line.upperBound, index - body < 9, let digit = chars[index].wholeNumberValue, chars[index].isASCII {
                start = (index == body ? 0 : start * 10) + digit
                index += 1
            }
            guard index > body, index < line.upperBound, chars[index] == "." || chars[index] == ")" else { return nil }
            marker = chars[index]
            index += 1
        }
        guard index < line.upperBound, chars[index] == " " else { return nil }
        while index < line.upperBound, chars[index] == " " { index += 1 }
        guard index < line.upperBound else { return nil }
        return ListItem(marker: marker, start: start, content: index..<line.upperBound)
    }
}
