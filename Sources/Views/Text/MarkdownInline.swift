/// The inline part of a message's Markdown: code spans, backslash escapes, links (bare
/// `http(s)://` addresses, and `[label](https://…)`), mentions, `#channel` references, line breaks, and `**strong**`, `*em*` / `_em_`, `~~del~~` matched by CommonMark's delimiter
/// algorithm ("process emphasis"), with its flanking rules extended for Korean, Chinese and
/// Japanese the way the CommonMark CJK-friendly proposal does: a closing `**` after
/// punctuation may be followed directly by a Hangul particle (`**"공지"**는`), and `_` may
/// open or close against a CJK letter (`_참고_로`).
///
/// Linear in the text: characters are read once; a code span's closer is found through a
/// forward-only pointer per backtick-run length, and a labelled link's `](` through another
/// (`LinkLabels`); each closer looks back for an opener no further than where the last
/// fruitless search of its kind stopped (`openersBottom`).
struct MarkdownInline {
    let members: MentionDirectory
    let channels: ChannelDirectory
    /// Who was mentioned so far (each once, in order of first mention), over every call.
    private(set) var mentioned: [Int64] = []
    /// The groups mentioned (`@here`, `@channel`, `@all`).
    private(set) var groups: Set<MentionGroup> = []

    init(members: MentionDirectory, channels: ChannelDirectory = .none) {
        self.members = members
        self.channels = channels
    }

    /// One piece of the output: text or an atom (HTML already), or a run of `*`, `_` or `~`
    /// that may become tags.
    private struct Piece {
        var html: String
        var plain: String
        var delimiter: Character?
        /// Characters of the run not (yet) turned into tags.
        var count = 0
        var original = 0
        var canOpen = false
        var canClose = false
        /// Tags written after the run's remaining characters (outermost first), and before them.
        var opening: [String] = []
        var closing: [String] = []
    }

    /// HTML and plain text (the words without the markup, for search) of `chars`.
    mutating func render(_ chars: ArraySlice<Character>) -> (html: String, plain: String) {
        var pieces: [Piece] = []
        var text = ""
        func flushText() {
            guard !text.isEmpty else { return }
            pieces.append(Piece(html: HTMLEscaping.escape(text), plain: text))
            text = ""
        }
        func atom(_ html: String, plain: String) {
            flushText()
            pieces.append(Piece(html: html, plain: plain))
        }

        let start = chars.startIndex, end = chars.endIndex
        var backticks = BacktickRuns(chars)
        var labels = LinkLabels(chars)
        var index = start
        while index < end {
            let character = chars[index]
            let previous: Character? = index > start ? chars[index - 1] : nil
            switch character {
            case "\\" where index + 1 < end && Self.isASCIIPunctuation(chars[index + 1]):
                text.append(chars[index + 1])
                index += 2
                continue
            case "`":
                var run = index
                while run < end, chars[run] == "`" { run += 1 }
                let length = run - index
                if let closer = backticks.closer(length: length, after: index) {
                    let content = Self.codeSpanContent(chars[run..<closer])
                    atom("<code>\(HTMLEscaping.escape(content))</code>", plain: content)
                    index = closer + length
                } else {
                    text.append(contentsOf: String(repeating: "`", count: length))
                    index = run
                }
                continue
            case "\n":
                atom("<br>", plain: "\n")
                index += 1
                continue
            case "*", "_", "~":
                var run = index
                while run < end, chars[run] == character { run += 1 }
                let before = previous, after: Character? = run < end ? chars[run] : nil
                let flanking = Self.flanking(before: before, after: after)
                var piece = Piece(html: "", plain: "", delimiter: character, count: run - index, original: run - index)
                switch character {
                case "_":
                    piece.canOpen = flanking.left && (!flanking.right || Self.isPunctuation(before) || Self.isCJK(before))
                    piece.canClose = flanking.right && (!flanking.left || Self.isPunctuation(after) || Self.isCJK(after))
                case "~":
                    // Only `~~`: a single tilde is a range in Korean (3~5일).
                    (piece.canOpen, piece.canClose) = piece.count == 2 ? (flanking.left, flanking.right) : (false, false)
                default:
                    (piece.canOpen, piece.canClose) = (flanking.left, flanking.right)
                }
                flushText()
                pieces.append(piece)
                index = run
                continue
            case "[":
                if let link = labels.link(openingAt: index) {
                    let address = HTMLEscaping.escape(String(chars[link.address]))
                    let label = String(chars[link.label])
                    atom(#"<a href="\#(address)" rel="noopener noreferrer nofollow" target="_blank">\#(HTMLEscaping.escape(label))</a>"#,
                         plain: label + " " + String(chars[link.address]))
                    index = link.end
                    continue
                }
            case "h" where Self.startsWord(previous):
                if let linkEnd = MessageLinks.linkEnd(chars, at: index) {
                    let address = HTMLEscaping.escape(String(chars[index..<linkEnd]))
                    atom(#"<a href="\#(address)" rel="noopener noreferrer nofollow" target="_blank">\#(address)</a>"#,
                         plain: String(chars[index..<linkEnd]))
                    index = linkEnd
                    continue
                }
            case "@" where Self.startsWord(previous):
                if let mention = members.mention(in: chars, after: index + 1) {
                    // The name as the author typed it (`@bob` for Bob): the text is theirs.
                    let typed = String(chars[(index + 1)..<mention.end])
                    let name = HTMLEscaping.escape(typed)
                    switch mention.target {
                    case .member(let id):
                        atom(#"<span class="mention" data-user="\#(id)">@\#(name)</span>"#, plain: "@" + typed)
                        if !mentioned.contains(id) { mentioned.append(id) }
                    case .group(let group):
                        atom(#"<span class="mention" data-user="\#(group.rawValue)">@\#(name)</span>"#, plain: "@" + typed)
                        groups.insert(group)
                    }
                    index = mention.end
                    continue
                }
            case "#" where Self.startsWord(previous):
                if let reference = channels.channel(in: chars, after: index + 1) {
                    let typed = String(chars[(index + 1)..<reference.end])
                    let href = HTMLEscaping.escape(reference.channel.href)
                    atom(#"<a class="channel-ref" href="\#(href)" data-room="\#(reference.channel.roomId)">#\#(HTMLEscaping.escape(typed))</a>"#,
                         plain: "#" + typed)
                    index = reference.end
                    continue
                }
            default:
                break
            }
            text.append(character)
            index += 1
        }
        flushText()
        Self.processEmphasis(&pieces)

        var html = "", plain = ""
        for piece in pieces {
            if let delimiter = piece.delimiter {
                let literal = String(repeating: delimiter, count: piece.count)
                html += piece.closing.joined() + literal + piece.opening.joined()
                plain += literal
            } else {
                html += piece.html
                plain += piece.plain
            }
        }
        return (html, plain)
    }

    // MARK: Emphasis

    /// CommonMark's "process emphasis" over the delimiter runs, as a linked list of their
    /// positions in `pieces` (which only grow, so positions also order them).
    private static func processEmphasis(_ pieces: inout [Piece]) {
        let runs = pieces.indices.filter { pieces[$0].delimiter != nil }
        guard runs.count > 1 else { return }
        // previous/next within the list of runs, by position in `runs`; -1 for none.
        var previous = Array(-1..<(runs.count - 1))
        var next = Array(1...runs.count)
        next[runs.count - 1] = -1
        func remove(_ run: Int) {
            if previous[run] >= 0 { next[previous[run]] = next[run] }
            if next[run] >= 0 { previous[next[run]] = previous[run] }
        }
        // Where searches for an opener of a kind of closer may stop: no opener at or before it.
        var openersBottom: [String: Int] = [:]
        var current = 0
        while current >= 0 {
            let closer = pieces[runs[current]]
            guard closer.canClose else { current = next[current]; continue }
            let kind = "\(closer.delimiter!)\(closer.original % 3)\(closer.canOpen)"
            let bottom = openersBottom[kind] ?? -1
            var opener = previous[current]
            var found = false
            while opener > bottom {
                let candidate = pieces[runs[opener]]
                if candidate.delimiter == closer.delimiter, candidate.canOpen {
                    if closer.delimiter == "~" {
                        found = candidate.count == 2 && closer.count == 2
                    } else {
                        // The rule of 3: `*foo**bar*` is not `<em>foo</em><em>bar</em>`.
                        let eitherBoth = candidate.canClose || closer.canOpen
                        let sum = candidate.original + closer.original
                        found = !(eitherBoth && sum % 3 == 0 && !(candidate.original % 3 == 0 && closer.original % 3 == 0))
                    }
                    if found { break }
                }
                opener = previous[opener]
            }
            guard found else {
                openersBottom[kind] = previous[current]
                let following = next[current]
                if !closer.canOpen { remove(current) }
                current = following
                continue
            }
            let used = closer.delimiter == "~" ? 2 : (closer.count >= 2 && pieces[runs[opener]].count >= 2 ? 2 : 1)
            let tag = closer.delimiter == "~" ? "del" : used == 2 ? "strong" : "em"
            pieces[runs[opener]].count -= used
            pieces[runs[current]].count -= used
            pieces[runs[opener]].opening.insert("<\(tag)>", at: 0)
            pieces[runs[current]].closing.append("</\(tag)>")
            // Runs between them can no longer match anything across these tags.
            var between = next[opener]
            while between >= 0, between != current {
                let following = next[between]
                remove(between)
                between = following
            }
            next[opener] = current
            previous[current] = opener
            if pieces[runs[opener]].count == 0 { remove(opener) }
            if pieces[runs[current]].count == 0 {
                let following = next[current]
                remove(current)
                current = following
            }
        }
    }

    // MARK: Characters

    /// Whether a delimiter run between `before` and `after` (nil: the start or end of the text)
    /// may open (left-flanking) and may close (right-flanking): CommonMark's rules, where a
    /// CJK letter on the far side counts like whitespace or punctuation.
    static func flanking(before: Character?, after: Character?) -> (left: Bool, right: Bool) {
        let left = !isWhitespace(after)
            && (!isPunctuation(after) || isWhitespace(before) || isPunctuation(before) || isCJK(before))
        let right = !isWhitespace(before)
            && (!isPunctuation(before) || isWhitespace(after) || isPunctuation(after) || isCJK(after))
        return (left, right)
    }

    private static func isWhitespace(_ character: Character?) -> Bool {
        character.map(\.isWhitespace) ?? true
    }

    static func isPunctuation(_ character: Character?) -> Bool {
        guard let character else { return false }
        if character.isASCII { return isASCIIPunctuation(character) }
        return character.isPunctuation || character.isSymbol
    }

    static func isASCIIPunctuation(_ character: Character) -> Bool {
        guard let value = character.asciiValue else { return false }
        return (0x21...0x2F).contains(value) || (0x3A...0x40).contains(value) || (0x5B...0x60).contains(value)
            || (0x7B...0x7E).contains(value)
    }

    /// Hangul, Han, kana, and the CJK symbols and full-width forms around them.
    static func isCJK(_ character: Character?) -> Bool {
        guard let scalar = character?.unicodeScalars.first?.value else { return false }
        switch scalar {
        case 0x1100...0x11FF, 0x2E80...0x2FDF, 0x3000...0x303F, 0x3040...0x30FF, 0x3130...0x318F, 0x31F0...0x31FF,
             0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA960...0xA97F, 0xAC00...0xD7FF, 0xF900...0xFAFF, 0xFF00...0xFFEF,
             0x20000...0x3FFFF:
            return true
        default:
            return false
        }
    }

    /// A link or mention starts a word: at the start, after whitespace, an opening bracket or
    /// quote, or a Markdown marker (`**https://…**`).
    static func startsWord(_ previous: Character?) -> Bool {
        guard let previous else { return true }
        return previous.isWhitespace || "([{<\"'*_~".contains(previous)
    }

    /// A code span's text: line breaks as spaces, and one space stripped from each end when
    /// both ends have one (so `` ` `` `` ` `` shows a backtick) unless it is all spaces.
    private static func codeSpanContent(_ chars: ArraySlice<Character>) -> String {
        var content = String(chars.map { $0 == "\n" ? " " : $0 })
        if content.count >= 2, content.first == " ", content.last == " ", content.contains(where: { $0 != " " }) {
            content = String(content.dropFirst().dropLast())
        }
        return content
    }
}

/// The backtick runs of a text, for finding where a code span closes: the next run of exactly
/// the opener's length. Each length keeps a pointer that only moves forward.
private struct BacktickRuns {
    private var starts: [Int: [Int]] = [:]
    private var cursor: [Int: Int] = [:]

    init(_ chars: ArraySlice<Character>) {
        var index = chars.startIndex
        while index < chars.endIndex {
            guard chars[index] == "`" else { index += 1; continue }
            var run = index
            while run < chars.endIndex, chars[run] == "`" { run += 1 }
            starts[run - index, default: []].append(index)
            index = run
        }
    }

    /// Where the first run of `length` backticks after position `after` starts.
    mutating func closer(length: Int, after: Int) -> Int? {
        guard let list = starts[length] else { return nil }
        var position = cursor[length] ?? 0
        while position < list.count, list[position] <= after { position += 1 }
        cursor[length] = position
        return position < list.count ? list[position] : nil
    }
}

/// Labelled links, `[label](https://…)`: the label is plain text on one line without brackets,
/// the address an `http(s)://` one without spaces, quotes, angle or square brackets, its round
/// brackets balanced. The `](` after an opening `[` is found through a forward-only pointer,
/// and an address is read only up to the next bracket or space, so no character is read by
/// two attempts (the renderer stays linear in the text).
private struct LinkLabels {
    private let chars: ArraySlice<Character>
    /// Where each `](` starts, in order, and the next one to consider.
    private var closers: [Int] = []
    private var cursor = 0

    init(_ chars: ArraySlice<Character>) {
        self.chars = chars
        var index = chars.startIndex
        while index + 1 < chars.endIndex {
            if chars[index] == "]", chars[index + 1] == "(" { closers.append(index) }
            index += 1
        }
    }

    /// The link whose `[` is at `open`: its label's and address's ranges and where it ends.
    mutating func link(openingAt open: Int) -> (label: Range<Int>, address: Range<Int>, end: Int)? {
        while cursor < closers.count, closers[cursor] <= open { cursor += 1 }
        guard cursor < closers.count else { return nil }
        let close = closers[cursor]
        let label = (open + 1)..<close
        // The label ends at the first `]`: an empty one, or one with another `[` or a line break, is text.
        guard !label.isEmpty, !chars[label].contains(where: { $0 == "[" || $0 == "]" || $0 == "\n" }) else { return nil }
        let addressStart = close + 2
        guard chars[addressStart...].starts(with: "https://") || chars[addressStart...].starts(with: "http://") else { return nil }
        var index = addressStart, depth = 0
        while index < chars.endIndex {
            let character = chars[index]
            if character.isWhitespace || "<>\"'`[]".contains(character) { return nil }
            if character == "(" { depth += 1 }
            if character == ")" {
                if depth == 0 { break }
                depth -= 1
            }
            index += 1
        }
        guard index < chars.endIndex, index > addressStart + "http://".count else { return nil }
        return (label, addressStart..<index, index + 1)
    }
}
