/// Parsed templates by name (the file name without `.mustache`), rendered into one string.
///
/// Every template is compiled into one flat list of steps that hold only numbers: a text is an
/// index into a table of texts, a name a range of the table of name parts, and a section's body
/// the steps up to its end. Rendering walks indices and copies no node, so it does no reference
/// counting for the template itself. (Walking the parsed tree, the copies of its boxed nodes and
/// their texts were half of the template time of a channel page.)
struct TemplateLibrary: Sendable {
    /// What rendering does at one position. Trivially copyable on purpose.
    private enum Step: Sendable {
        /// `texts[index]` as it is.
        case text(Int)
        /// The value of the name `names[start ..< start + count]` (no parts: `.`).
        case variable(start: Int, count: Int, escaped: Bool)
        /// The steps after this one up to `end`, for the name's value (or for its absence).
        case section(start: Int, count: Int, end: Int, inverted: Bool)
        /// The steps of template number `template`; `indentation` (an index into `texts`, or -1)
        /// starts each line.
        case partial(template: Int, indentation: Int)
    }

    private let steps: [Step]
    private let texts: [String]
    private let names: [String]
    /// Where each template's steps are, by number.
    private let ranges: [Range<Int>]
    /// Each template's number, by name.
    private let numbers: [String: Int]

    /// Parses every text, failing with the file and line of the first error or with a partial
    /// that names no template.
    init(texts sources: [String: String]) throws {
        var parsed: [String: Template] = [:]
        for (name, text) in sources {
            do {
                parsed[name] = try Template(text)
            } catch {
                throw TemplateError.unparsable(name + ".mustache", error.description)
            }
        }
        for (name, template) in parsed {
            for partial in template.partialNames where parsed[partial] == nil {
                throw TemplateError.unparsable(name + ".mustache", "the partial \(partial) does not exist")
            }
        }
        let order = parsed.keys.sorted()
        var compiler = Compiler(numbers: Dictionary(uniqueKeysWithValues: order.enumerated().map { ($1, $0) }))
        ranges = order.map { compiler.compile(parsed[$0]!) }
        (steps, texts, names, numbers) = (compiler.steps, compiler.texts, compiler.names, compiler.numbers)
    }

    func contains(_ name: String) -> Bool { numbers[name] != nil }

    /// `name` rendered with `context` at the bottom of the lookup stack; nil for an unknown name.
    /// `capacity` is room reserved up front (a whole page); fragments that are kept in caches
    /// should not reserve, since a string keeps its capacity.
    func render(_ name: String, _ context: TemplateValue, capacity: Int = 0) -> String? {
        guard let number = numbers[name] else { return nil }
        var output = ""
        output.reserveCapacity(capacity)
        var stack = [context]
        run(ranges[number], stack: &stack, into: &output)
        return output
    }

    private func run(_ range: Range<Int>, stack: inout [TemplateValue], into output: inout String) {
        var position = range.lowerBound
        while position < range.upperBound {
            switch steps[position] {
            case .text(let index):
                output += texts[index]
                position += 1
            case .variable(let start, let count, let escaped):
                switch resolve(start, count, in: stack) {
                case .text(let text): output += escaped ? HTMLEscaping.escape(text) : text
                case .number(let number): output += String(number)
                case .flag(let flag): output += flag ? "true" : "false"
                case .list, .context, .missing: break
                }
                position += 1
            case .section(let start, let count, let end, let inverted):
                let body = position + 1 ..< end
                let value = resolve(start, count, in: stack)
                if inverted {
                    if value.isFalsy { run(body, stack: &stack, into: &output) }
                } else {
                    switch consume value {
                    case .missing: break
                    case .flag(let flag):
                        if flag { run(body, stack: &stack, into: &output) }
                    case .list(let items):
                        for item in items { enter(item, body, stack: &stack, into: &output) }
                    case let entered:
                        enter(entered, body, stack: &stack, into: &output)
                    }
                }
                position = end
            case .partial(let template, let indentation):
                if indentation < 0 {
                    run(ranges[template], stack: &stack, into: &output)
                } else {
                    var partial = ""
                    run(ranges[template], stack: &stack, into: &partial)
                    output += Self.indent(partial, by: texts[indentation])
                }
                position += 1
            }
        }
    }

    private func enter(_ value: consuming TemplateValue, _ body: Range<Int>, stack: inout [TemplateValue], into output: inout String) {
        stack.append(value)
        run(body, stack: &stack, into: &output)
        stack.removeLast()
    }

    /// The first part of a dotted name is looked up from the innermost context outwards; the
    /// rest inside what it found.
    private func resolve(_ start: Int, _ count: Int, in stack: [TemplateValue]) -> TemplateValue {
        guard count > 0 else { return stack.last ?? .missing }
        var found = TemplateValue.missing
        var level = stack.count
        while level > 0 {
            level -= 1
            guard case .context(let context) = stack[level] else { continue }
            let value = context.value(forKey: names[start])
            if case .missing = value { continue }
            found = value
            break
        }
        for part in start + 1 ..< start + count {
            // Consumed, so the context is moved out rather than copied and released.
            guard case .context(let context) = consume found else { return .missing }
            found = context.value(forKey: names[part])
        }
        return found
    }

    /// Every line of a standalone partial starts with the tag's indentation.
    private static func indent(_ text: String, by indentation: String) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let endsWithNewline = lines.last == ""
        if endsWithNewline { lines.removeLast() }
        return lines.map { $0.isEmpty ? "" : indentation + $0 }.joined(separator: "\n") + (endsWithNewline ? "\n" : "")
    }

    /// Lays parsed templates out as steps, one template after another. Partials are referred to
    /// by number, so a template may include itself.
    private struct Compiler {
        let numbers: [String: Int]
        var steps: [Step] = []
        var texts: [String] = []
        var names: [String] = []

        /// Where `template`'s steps are.
        mutating func compile(_ template: Template) -> Range<Int> {
            let start = steps.count
            append(template.nodes)
            return start ..< steps.count
        }

        private mutating func append(_ nodes: [Template.Node]) {
            for node in nodes {
                switch node {
                case .text(let text):
                    steps.append(.text(add(text)))
                case .variable(let path, let escaped):
                    let (start, count) = add(path)
                    steps.append(.variable(start: start, count: count, escaped: escaped))
                case .section(let path, let children, let inverted):
                    let (start, count) = add(path)
                    let position = steps.count
                    steps.append(.text(-1))   // replaced once the body's end is known
                    append(children)
                    steps[position] = .section(start: start, count: count, end: steps.count, inverted: inverted)
                case .partial(let name, let indentation):
                    // Every partial's name was checked to exist before compiling.
                    steps.append(.partial(template: numbers[name]!, indentation: indentation.isEmpty ? -1 : add(indentation)))
                }
            }
        }

        private mutating func add(_ text: String) -> Int {
            texts.append(text)
            return texts.count - 1
        }

        private mutating func add(_ path: Template.Path) -> (start: Int, count: Int) {
            names.append(contentsOf: path.parts)
            return (names.count - path.parts.count, path.parts.count)
        }
    }
}
