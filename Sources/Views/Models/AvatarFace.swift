import Foundation

/// How a person without a photo is drawn, the same on every page and in every script (the
/// people JSON carries both): up to two letters of their name on one of `tones` colours,
/// chosen by their account, so teammates are told apart at a glance and never change colour.
public enum AvatarFace {
    /// How many colours there are (`.avatar-tone-0` … in the stylesheet).
    public static let tones = 8

    /// The letters: a Korean name's given name, as colleagues call each other (김민아 → 민아;
    /// its last two syllables), else the first letters of the first two words (Kim Mina → KM,
    /// Bob → B); `?` for an empty name.
    public static func initials(_ nickname: String) -> String {
        // Names already composed (Hangul syllables, ASCII: nearly all) skip normalizing.
        let composed = nickname.unicodeScalars.allSatisfy { $0.isASCII || (0xAC00...0xD7A3).contains($0.value) }
        let name = (composed ? nickname : nickname.precomposedStringWithCanonicalMapping).trimmingCharacters(in: .whitespaces)
        let characters = Array(name)
        if characters.count >= 2, characters.allSatisfy(KoreanNames.isSyllable) {
            return String(characters.suffix(2))
        }
        let words = name.split(whereSeparator: { $0.isWhitespace })
        let letters = words.prefix(2).compactMap(\.first).map { String($0).uppercased() }
        return letters.isEmpty ? "?" : letters.joined()
    }

    /// One letter, for small avatars (a sidebar row): the first of `initials`.
    public static func initial(_ nickname: String) -> String {
        String(initials(nickname).prefix(1))
    }

    /// The colour of account `id` (0 ..< `tones`).
    public static func tone(_ id: Int64) -> Int {
        Int((id % Int64(tones) + Int64(tones)) % Int64(tones))
    }
}
