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

    /// Every English text: the chat's, then accounts and administration's (kept in files of
    /// their own; a test checks no key is in both).
    static let english = englishBase.merging(englishAccounts) { base, _ in base }
    static let korean = koreanBase.merging(koreanAccounts) { base, _ in base }

    /// The text for `key`; the key itself when missing (visible in the page, caught by tests).
    public subscript(_ key: String) -> String { table[key] ?? key }

    /// The text for `key` with `{0}`, `{1}`, … replaced by `arguments`.
    public func format(_ key: String, _ arguments: any CustomStringConvertible...) -> String {
        format(key, arguments: arguments)
    }

    /// The text for `key` with `{0}`, `{1}`, … replaced by `arguments`, `{0:을}` by the
    /// Korean particle that follows argument 0 (을 or 를; see `KoreanParticle`), and
    /// `{0:member|members}` by the singular when argument 0 is 1, else the plural.
    /// One pass over the text's UTF-8 (the channel page formats four texts per request, and
    /// walking Korean text by characters showed in its profile), so an argument that itself
    /// contains `{1}` is left as it is.
    public func format(_ key: String, arguments: [any CustomStringConvertible]) -> String {
        let text = self[key]
        let utf8 = text.utf8
        var output = ""
        var plainStart = utf8.startIndex
        var searchFrom = plainStart
        while let open = utf8[searchFrom...].firstIndex(of: UInt8(ascii: "{")) {
            let afterOpen = utf8.index(after: open)
            searchFrom = afterOpen
            guard let close = utf8[afterOpen...].firstIndex(of: UInt8(ascii: "}")) else { continue }
            let inside = Substring(utf8[afterOpen..<close])
            let colon = inside.firstIndex(of: ":")
            guard let index = Int(inside[..<(colon ?? inside.endIndex)]), arguments.indices.contains(index) else { continue }
            let replacement: String
            if let colon {
                let choice = inside[inside.index(after: colon)...]
                if let bar = choice.firstIndex(of: "|") {
                    // `{0:message|messages}`: English singular for exactly 1, else the plural.
                    replacement = String(arguments[index].description == "1" ? choice[..<bar] : choice[choice.index(after: bar)...])
                } else {
                    guard let particle = KoreanParticle.form(of: choice, after: arguments[index].description) else { continue }
                    replacement = particle
                }
            } else {
                replacement = arguments[index].description
            }
            output += Substring(utf8[plainStart..<open])
            output += replacement
            plainStart = utf8.index(after: close)
            searchFrom = plainStart
        }
        output += Substring(utf8[plainStart...])
        return output
    }
}
