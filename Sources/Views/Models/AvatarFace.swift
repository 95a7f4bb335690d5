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
        // Names already composed (Hangul syllables, ASCII: nearly all) are one scalar per
        // character, so they are read as scalars: with Foundation's `trimmingCharacters(in:)` and
        // grapheme breaking this was 11% of a workspace home's CPU (ten rooms).
        let scalars = nickname.unicodeScalars
        if scalars.allSatisfy({ $0.isASCII || isHangulSyllable($0) }) {
            let words = scalars.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" })
            if words.count == 1, let word = words.first, word.count >= 2, word.allSatisfy(isHangulSyllable) {
                return String(String.UnicodeScalarView(word.suffix(2)))
            }
            var letters = String.UnicodeScalarView()
            for word in words.prefix(2) {
                let first = word[word.startIndex]
                letters.append(first.isASCII ? Unicode.Scalar(UInt8(ascii: first).uppercasedASCII) : first)
            }
            return letters.isEmpty ? "?" : String(letters)
        }
        let name = nickname.precomposedStringWithCanonicalMapping
        let words = name.split(whereSeparator: { $0.isWhitespace })
        if words.count == 1, let word = words.first, word.count >= 2, word.allSatisfy(KoreanNames.isSyllable) {
            return String(word.suffix(2))
        }
        let letters = words.prefix(2).compactMap { $0.first }.map { String($0).uppercased() }
        return letters.isEmpty ? "?" : letters.joined()
    }

    private static func isHangulSyllable(_ scalar: Unicode.Scalar) -> Bool {
        (0xAC00...0xD7A3).contains(scalar.value)
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

private extension UInt8 {
    var uppercasedASCII: UInt8 { (0x61...0x7A).contains(self) ? self - 0x20 : self }
}
