import Foundation

/// A language of the user interface.
public enum Lang: String, CaseIterable, Sendable {
    case ko
    case en

    /// The language used when a browser asks for neither Korean nor English.
    public static let fallback: Lang = .en

    /// The translations of this language.
    public var strings: Strings { Strings(lang: self) }

    /// Picks the language a browser prefers from an `Accept-Language` header
    /// (`ko-KR,ko;q=0.9,en-US;q=0.8`), honouring q-values; `nil` when it names neither language.
    public static func preferred(byAcceptLanguage header: String?) -> Lang? {
        guard let header else { return nil }
        var best: (lang: Lang, quality: Double, order: Int)?
        for (order, item) in header.split(separator: ",").enumerated() {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let tag = parts.first?.lowercased(), !tag.isEmpty else { continue }
            let primary = tag.split(separator: "-").first.map(String.init) ?? tag
            guard let lang = Lang(rawValue: primary) else { continue }
            var quality = 1.0
            for parameter in parts.dropFirst() where parameter.hasPrefix("q=") {
                quality = Double(parameter.dropFirst(2)) ?? 0
            }
            guard quality > 0 else { continue }
            if best == nil || quality > best!.quality || (quality == best!.quality && order < best!.order) {
                best = (lang, quality, order)
            }
        }
        return best?.lang
    }
}
