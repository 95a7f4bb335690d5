/// Parsed templates by name (the file name without `.mustache`), rendered into one string.
struct TemplateLibrary: Sendable {
    private let templates: [String: Template]

    /// Parses every text, failing with the file and line of the first error or with a partial
    /// that names no template.
    init(texts: [String: String]) throws {
        var templates: [String: Template] = [:]
        for (name, text) in texts {
            do {
                templates[name] = try Template(text)
            } catch {
                throw TemplateError.unparsable(name + ".mustache", error.description)
            }
        }
        for (name, template) in templates {
            for partial in template.partialNames where templates[partial] == nil {
                throw TemplateError.unparsable(name + ".mustache", "the partial \(partial) does not exist")
            }
        }
        self.templates = templates
    }

    func contains(_ name: String) -> Bool { templates[name] != nil }

    /// `name` rendered with `context` at the bottom of the lookup stack; nil for an unknown name.
    /// `capacity` is room reserved up front (a whole page); fragments that are kept in caches
    /// should not reserve, since a string keeps its capacity.
    func render(_ name: String, _ context: TemplateValue, capacity: Int = 0) -> String? {
        guard let template = templates[name] else { return nil }
        var output = ""
        output.reserveCapacity(capacity)
        var stack = [context]
        render(template.nodes, stack: &stack, into: &output)
        return output
    }

    private func render(_ nodes: [Template.Node], stack: inout [TemplateValue], into output: inout String) {
        for node in nodes {
            switch node {
            case .text(let text):
                output += text
            case .variable(let path, let escaped):
                switch resolve(path, in: stack) {
                case .text(let text): output += escaped ? HTMLEscaping.escape(text) : text
                case .number(let number): output += String(number)
                case .flag(let flag): output += flag ? "true" : "false"
                case .list, .context, .missing: break
                }
            case .section(let path, let children, let inverted):
                let value = resolve(path, in: stack)
                if inverted {
                    if value.isFalsy { render(children, stack: &stack, into: &output) }
                    continue
                }
                switch value {
                case .missing: break
                case .flag(let flag):
                    if flag { render(children, stack: &stack, into: &output) }
                case .list(let items):
                    for item in items { enter(item, children, stack: &stack, into: &output) }
                case .text, .number, .context:
                    enter(value, children, stack: &stack, into: &output)
                }
            case .partial(let name, let indentation):
                guard let template = templates[name] else { continue }
                if indentation.isEmpty {
                    render(template.nodes, stack: &stack, into: &output)
                } else {
                    var partial = ""
                    render(template.nodes, stack: &stack, into: &partial)
                    output += Self.indent(partial, by: indentation)
                }
            }
        }
    }

    private func enter(_ value: TemplateValue, _ nodes: [Template.Node], stack: inout [TemplateValue], into output: inout String) {
        stack.append(value)
        render(nodes, stack: &stack, into: &output)
        stack.removeLast()
    }

    /// The first part of a dotted name is looked up from the innermost context outwards; the
    /// rest inside what it found.
    private func resolve(_ path: Template.Path, in stack: [TemplateValue]) -> TemplateValue {
        guard let first = path.parts.first else { return stack.last ?? .missing }
        var found = TemplateValue.missing
        for case .context(let context) in stack.reversed() {
            let value = context.value(forKey: first)
            if case .missing = value { continue }
            found = value
            break
        }
        for part in path.parts.dropFirst() {
            guard case .context(let context) = found else { return .missing }
            found = context.value(forKey: part)
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
}
