import Foundation

/// Writes the translations into the templates once, at load time: `{{t.key}}` becomes the
/// HTML-escaped text of `key` in one language (and `{{{t.key}}}` or `{{&t.key}}` the raw
/// text), so rendering a page looks nothing up for its fixed wording. A key the table lacks,
/// or a text that itself looks like a Mustache tag, is left for the renderer as before.
enum TemplateTranslation {
    static func translate(_ template: String, with table: [String: String]) -> String {
        var output = ""
        output.reserveCapacity(template.utf8.count)
        var rest = template[...]
        while let open = rest.range(of: "{{") {
            output += rest[..<open.lowerBound]
            let tag = rest[open.lowerBound...]
            if let (length, replacement) = translatedTag(tag, table) {
                output += replacement
                rest = tag.dropFirst(length)
            } else {
                output += "{{"
                rest = rest[open.upperBound...]
            }
        }
        output += rest
        return output
    }

    /// The length of the translation tag at the start of `tag` and its replacement, if it is one.
    private static func translatedTag(_ tag: Substring, _ table: [String: String]) -> (Int, String)? {
        for (prefix, suffix, raw) in [("{{{t.", "}}}", true), ("{{&t.", "}}", true), ("{{t.", "}}", false)] {
            guard tag.hasPrefix(prefix), let end = tag.range(of: suffix) else { continue }
            let key = tag[tag.index(tag.startIndex, offsetBy: prefix.count)..<end.lowerBound]
            guard !key.isEmpty, key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }),
                  let text = table[String(key)], !text.contains("{{"), !text.contains("}}")
            else { return nil }
            let length = tag.distance(from: tag.startIndex, to: end.upperBound)
            return (length, raw ? text : HTMLEscaping.escape(text))
        }
        return nil
    }
}
