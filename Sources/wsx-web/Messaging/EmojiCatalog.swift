import Foundation
import Views

/// The emoji people may react with: every fully-qualified RGI emoji, with its English and Korean
/// names, from `Public/emoji.tsv` (generated once from CLDR by `tools/emoji_table.py`; the
/// reaction picker searches the same file).
struct EmojiCatalog: Sendable {
    /// One emoji of the table.
    struct Entry: Sendable, Equatable {
        /// Fully qualified (with its U+FE0F selectors), as reactions store it.
        let emoji: String
        let englishName: String
        let koreanName: String

        func name(in lang: Lang) -> String { lang == .ko ? koreanName : englishName }
    }

    /// Entries by their text without variation selectors, so `❤` and `❤️` are the same heart.
    private let entries: [String: Entry]
    /// Emoji by shortcode (`+1`, `tada`, `white_check_mark`), and each emoji's own name for
    /// writing it back (Slack's style where there is one: `thumbsup`, not `thumbs_up`).
    private let byShortcode: [String: String]
    private let shortcodes: [String: String]

    /// The reactions offered first, by the picker and by the form without a script.
    static let common = ["👍", "❤️", "😂", "🎉", "😮", "🙏", "👀", "✅"]

    /// Reads the table: comment lines start with `# ` (`#️⃣` is an emoji); each other line is the emoji, its group,
    /// its English name and keywords, its Korean name and keywords, and its shortcodes, separated by tabs.
    init(tsv: String) {
        var entries: [String: Entry] = [:]
        var names: [String: String] = [:], aliases: [String: String] = [:], codesOf: [(emoji: String, codes: [String])] = []
        for line in tsv.split(separator: "\n") where !line.hasPrefix("# ") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count >= 6, !fields[0].isEmpty else { continue }
            let entry = Entry(emoji: String(fields[0]), englishName: String(fields[2]), koreanName: String(fields[4]))
            entries[Self.key(entry.emoji)] = entries[Self.key(entry.emoji)] ?? entry
            // The first shortcode is the emoji's own name (`thumbs_up`), the rest the aliases
            // people type (`+1`, `thumbsup`).
            let codes = fields.count > 6 ? fields[6].split(separator: "|").map(String.init) : []
            for (index, code) in codes.enumerated() {
                if index == 0 { names[code] = names[code] ?? entry.emoji } else { aliases[code] = aliases[code] ?? entry.emoji }
            }
            if !codes.isEmpty { codesOf.append((entry.emoji, codes)) }
        }
        self.entries = entries
        // A code that is one emoji's name and another's alias means the aliased one, as in
        // Slack (`sunglasses` 😎, `dog` 🐶), but for the codes Slack gives to the named one.
        let byShortcode = names.merging(aliases) { _, alias in alias }.merging(Self.slackNames) { _, slack in slack }
        self.byShortcode = byShortcode
        // Written back as its first alias (Slack's style), else its name: one that reads back as itself.
        var shortcodes: [String: String] = [:]
        for (emoji, codes) in codesOf {
            if let code = (codes.dropFirst() + codes.prefix(1)).first(where: { byShortcode[$0] == emoji }) {
                shortcodes[Self.key(emoji)] = code
            }
        }
        self.shortcodes = shortcodes
    }

    /// Codes Slack reads otherwise than the table's aliases would.
    private static let slackNames = ["egg": "🥚"]

    /// The table embedded in the binary.
    static func embedded(_ files: [String: Data]) throws -> EmojiCatalog {
        guard let data = files["emoji.tsv"], let text = String(data: data, encoding: .utf8) else {
            throw CatalogError.missing
        }
        return EmojiCatalog(tsv: text)
    }

    enum CatalogError: Error, CustomStringConvertible {
        case missing
        var description: String { "Public/emoji.tsv is missing from the build" }
    }

    var count: Int { entries.count }

    /// The entry for `text` when it is exactly one emoji of the table (with or without its
    /// variation selectors, surrounding spaces ignored); nil for anything else.
    func entry(for text: String) -> Entry? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.unicodeScalars.count <= 16 else { return nil }
        return entries[Self.key(trimmed)]
    }

    /// The emoji a Slack reaction name means: `+1`, `tada`, `thumbsup::skin-tone-3` (toned, when
    /// the table has the toned emoji), `flag-kr`, `man-shrugging`; nil for a custom emoji.
    func entry(forShortcode rawName: String) -> Entry? {
        let parts = rawName.lowercased().split(separator: "::", maxSplits: 1).map(String.init)
        guard let base = parts.first, !base.isEmpty else { return nil }
        let candidates = [base, base.replacingOccurrences(of: "-", with: "_"),
                          base.hasPrefix("flag-") ? String(base.dropFirst(5)) : nil].compactMap { $0 }
        guard let emoji = candidates.lazy.compactMap({ self.byShortcode[$0] }).first else { return nil }
        if parts.count == 2, let tone = Self.skinTones[parts[1]], let toned = entry(for: emoji + tone) {
            return toned
        }
        return entry(for: emoji)
    }

    /// The name Slack knows an emoji by (`thumbsup`, `white_check_mark`), with its skin tone
    /// (`thumbsup::skin-tone-3`); nil for an emoji without one.
    func shortcode(for emoji: String) -> String? {
        if let code = shortcodes[Self.key(emoji)] { return code }
        guard let toneScalar = emoji.unicodeScalars.first(where: { (0x1F3FB...0x1F3FF).contains($0.value) }),
              let tone = Self.skinTones.first(where: { $0.value.unicodeScalars.first == toneScalar })?.key else { return nil }
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: emoji.unicodeScalars.filter { $0 != toneScalar })
        return shortcodes[Self.key(String(scalars))].map { "\($0)::\(tone)" }
    }

    /// Slack's skin tones, 2 (lightest) to 6, as Unicode's modifiers.
    private static let skinTones: [String: String] = [
        "skin-tone-2": "\u{1F3FB}", "skin-tone-3": "\u{1F3FC}", "skin-tone-4": "\u{1F3FD}", "skin-tone-5": "\u{1F3FE}",
        "skin-tone-6": "\u{1F3FF}",
    ]

    private static func key(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: text.unicodeScalars.filter { $0.value != 0xFE0F && $0.value != 0xFE0E })
        return String(scalars)
    }
}
