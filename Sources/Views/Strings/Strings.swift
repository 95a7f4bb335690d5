/// The translated texts of one language, looked up by key.
///
/// Templates read them as `{{t.key}}`; Swift code uses `strings["key"]` or
/// `strings.format("key", args…)` for texts with `{0}`-style placeholders. A test checks that every
/// key a template uses exists in every language, and that the languages have the same keys.
public struct Strings: Sendable {
    public let lang: Lang
    /// Every key with its text, handed to templates as `t`.
    public let table: [String: String]

    public init(lang: Lang) {
        self.lang = lang
        switch lang {
        case .ko: self.table = Strings.korean
        case .en: self.table = Strings.english
        }
    }

    /// The text for `key`; the key itself when missing (visible in the page, caught by tests).
    public subscript(_ key: String) -> String { table[key] ?? key }

    /// The text for `key` with `{0}`, `{1}`, … replaced by `arguments`.
    public func format(_ key: String, _ arguments: any CustomStringConvertible...) -> String {
        format(key, arguments: arguments)
    }

    /// The text for `key` with `{0}`, `{1}`, … replaced by `arguments`.
    /// One pass over the text (the channel page formats four texts per request), so an argument
    /// that itself contains `{1}` is left as it is.
    public func format(_ key: String, arguments: [any CustomStringConvertible]) -> String {
        let text = self[key]
        var output = ""
        var rest = text[...]
        while let open = rest.firstIndex(of: "{") {
            output += rest[..<open]
            let afterOpen = rest.index(after: open)
            if let close = rest[afterOpen...].firstIndex(of: "}"), let index = Int(rest[afterOpen..<close]),
               arguments.indices.contains(index) {
                output += arguments[index].description
                rest = rest[rest.index(after: close)...]
            } else {
                output += "{"
                rest = rest[afterOpen...]
            }
        }
        output += rest
        return output
    }
}
