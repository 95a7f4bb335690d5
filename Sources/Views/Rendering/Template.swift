import Foundation

/// A Mustache template parsed once into a tree: text, variables, sections, inverted sections and
/// partials, with names already split at their dots. Covers what `Templates/` uses and the
/// Mustache spec's rules for it (standalone tag lines vanish, lookups climb enclosing contexts),
/// without lambdas or delimiter changes. Everything in `{{ }}` is HTML-escaped.
struct Template: Sendable {
    indirect enum Node: Sendable {
        case text(String)
        case variable(Path, escaped: Bool)
        case section(Path, [Node], inverted: Bool)
        case partial(String, indentation: String)
    }

    /// A dotted name; no parts means `.`, the current context.
    struct Path: Sendable {
        let parts: [String]

        init(_ name: String) {
            parts = name == "." ? [] : name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        }
    }

    let nodes: [Node]

    /// Parses `text`, failing with the line of the first tag it cannot make sense of.
    init(_ text: String) throws(TemplateSyntaxError) {
        nodes = try TemplateParser(text).parse()
    }

    /// The names of the partials this template includes, at any depth.
    var partialNames: [String] {
        func names(_ nodes: [Node]) -> [String] {
            nodes.flatMap { node -> [String] in
                switch node {
                case .partial(let name, _): [name]
                case .section(_, let children, _): names(children)
                case .text, .variable: []
                }
            }
        }
        return names(nodes)
    }
}

/// Why a template does not parse.
struct TemplateSyntaxError: Error, CustomStringConvertible {
    let line: Int
    let reason: String

    var description: String { "line \(line): \(reason)" }
}

/// Turns a template's text into nodes: first a flat list of text and tags, then standalone tag
/// lines trimmed, then sections nested.
private struct TemplateParser {
    private enum Kind: Equatable {
        case variable, unescaped, section, inverted, close, comment, partial
        /// Tags that stand alone on a line take the whole line with them.
        var canStandAlone: Bool { self != .variable && self != .unescaped }
    }

    private enum Piece {
        case text(Substring)
        case tag(Kind, String, line: Int, indentation: String)
    }

    let text: String

    init(_ text: String) { self.text = text }

    func parse() throws(TemplateSyntaxError) -> [Template.Node] {
        var pieces = try scan()
        trimStandaloneLines(&pieces)
        var index = 0
        return try nest(pieces, from: &index, closing: nil)
    }

    private func scan() throws(TemplateSyntaxError) -> [Piece] {
        var pieces: [Piece] = []
        var rest = text[...]
        var line = 1
        while let open = rest.range(of: "{{") {
            let before = rest[..<open.lowerBound]
            line += before.count(where: \.isLineBreak)
            if !before.isEmpty { pieces.append(.text(before)) }
            var body = rest[open.upperBound...]
            let kind: Kind
            var closer = "}}"
            switch body.first {
            case "{": kind = .unescaped; closer = "}}}"; body = body.dropFirst()
            case "&": kind = .unescaped; body = body.dropFirst()
            case "#": kind = .section; body = body.dropFirst()
            case "^": kind = .inverted; body = body.dropFirst()
            case "/": kind = .close; body = body.dropFirst()
            case "!": kind = .comment; body = body.dropFirst()
            case ">": kind = .partial; body = body.dropFirst()
            case "=": throw TemplateSyntaxError(line: line, reason: "changing delimiters is not supported")
            default: kind = .variable
            }
            guard let close = body.range(of: closer) else {
                throw TemplateSyntaxError(line: line, reason: "a tag is not closed with \(closer)")
            }
            let name = body[..<close.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines)
            if kind != .comment, name.isEmpty || name.contains(where: { $0 == " " || $0 == "{" || $0 == "}" }) {
                throw TemplateSyntaxError(line: line, reason: "\"\(name)\" is not a name")
            }
            pieces.append(.tag(kind, name, line: line, indentation: ""))
            line += body[..<close.lowerBound].count(where: \.isLineBreak)
            rest = body[close.upperBound...]
        }
        if !rest.isEmpty { pieces.append(.text(rest)) }
        return pieces
    }

    /// A section, inverted, closing, comment or partial tag alone on its line (only spaces or tabs
    /// around it) removes that line's whitespace and line break, so templates can be indented
    /// without leaving blank lines in the page. Decided on the text as written, then cut.
    private func trimStandaloneLines(_ pieces: inout [Piece]) {
        var keepFrom: [Int: Substring.Index] = [:]   // text piece -> where it starts after the cut
        var keepUpTo: [Int: Substring.Index] = [:]   // text piece -> where it ends after the cut
        for index in pieces.indices {
            guard case .tag(let kind, let name, let line, _) = pieces[index], kind.canStandAlone else { continue }
            // What precedes the tag on its line: the end of the previous text, or the start.
            let indentation: Substring
            if index == 0 {
                indentation = ""
            } else if case .text(let previous) = pieces[index - 1] {
                if let newline = previous.lastIndex(where: \.isLineBreak) {
                    indentation = previous[previous.index(after: newline)...]
                } else if index == 1 {
                    indentation = previous
                } else {
                    continue
                }
            } else {
                continue
            }
            guard indentation.allSatisfy(\.isSpaceOrTab) else { continue }
            // What follows it: the next text up to and with its line break, or the end.
            var lineEnd: Substring.Index?
            if index + 1 < pieces.count {
                guard case .text(let next) = pieces[index + 1] else { continue }
                if let newline = next.firstIndex(where: \.isLineBreak) {
                    guard next[..<newline].allSatisfy(\.isSpaceOrTab) else { continue }
                    lineEnd = next.index(after: newline)
                } else {
                    guard index + 2 == pieces.count, next.allSatisfy(\.isSpaceOrTab) else { continue }
                    lineEnd = next.endIndex
                }
            }
            if index > 0 { keepUpTo[index - 1] = indentation.startIndex }
            if let lineEnd { keepFrom[index + 1] = lineEnd }
            pieces[index] = .tag(kind, name, line: line, indentation: String(indentation))
        }
        for index in pieces.indices {
            guard case .text(let text) = pieces[index], keepFrom[index] != nil || keepUpTo[index] != nil else { continue }
            pieces[index] = .text(text[(keepFrom[index] ?? text.startIndex)..<(keepUpTo[index] ?? text.endIndex)])
        }
    }

    private func nest(_ pieces: [Piece], from index: inout Int, closing: (name: String, line: Int)?) throws(TemplateSyntaxError) -> [Template.Node] {
        var nodes: [Template.Node] = []
        while index < pieces.count {
            let piece = pieces[index]
            index += 1
            switch piece {
            case .text(let text):
                if !text.isEmpty { nodes.append(.text(String(text))) }
            case .tag(.variable, let name, _, _):
                nodes.append(.variable(Template.Path(name), escaped: true))
            case .tag(.unescaped, let name, _, _):
                nodes.append(.variable(Template.Path(name), escaped: false))
            case .tag(.comment, _, _, _):
                break
            case .tag(.partial, let name, _, let indentation):
                nodes.append(.partial(name, indentation: indentation))
            case .tag(let kind, let name, let line, _) where kind == .section || kind == .inverted:
                let children = try nest(pieces, from: &index, closing: (name, line))
                nodes.append(.section(Template.Path(name), children, inverted: kind == .inverted))
            case .tag(_, let name, let line, _):
                guard let closing, closing.name == name else {
                    throw TemplateSyntaxError(line: line, reason: "{{/\(name)}} closes no open section"
                                              + (closing.map { " ({{#\($0.name)}} is open)" } ?? ""))
                }
                return nodes
            }
        }
        if let closing {
            throw TemplateSyntaxError(line: closing.line, reason: "{{#\(closing.name)}} is never closed")
        }
        return nodes
    }
}

private extension Character {
    var isSpaceOrTab: Bool { self == " " || self == "\t" }
    /// `\r\n` is one `Character` in Swift.
    var isLineBreak: Bool { self == "\n" || self == "\r\n" }
}
