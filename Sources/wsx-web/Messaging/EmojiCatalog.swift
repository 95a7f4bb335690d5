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

    /// The reactions offered first, by the picker and by the form without a script.
    static let common = ["👍", "❤️", "😂", "🎉", "😮", "🙏", "👀", "✅"]

    /// Reads the table: comment lines start with `# ` (`#️⃣` is an emoji); each other line is the emoji, its group,
    /// its English name and keywords, its Korean name and keywords, separated by tabs.
    init(tsv: String) {
        var entries: [String: Entry] = [:]
        for line in tsv.split(separator: "\n") where !line.hasPrefix("# ") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count >= 6, !fields[0].isEmpty else { continue }
            let entry = Entry(emoji: String(fields[0]), englishName: String(fields[2]), koreanName: String(fields[4]))
            entries[Self.key(entry.emoji)] = entries[Self.key(entry.emoji)] ?? entry
        }
        self.entries = entries
    }

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

    private static func key(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: text.unicodeScalars.filter { $0.value != 0xFE0F && $0.value != 0xFE0E })
        return String(scalars)
    }
}
