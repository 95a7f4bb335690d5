/// How long a piece of text may be, measured the three ways that matter.
///
/// People count characters (grapheme clusters: `한`, `👨‍👩‍👧‍👦` and `🇰🇷` are one each), so limits are
/// stated in characters. But a character has no size limit of its own: one letter followed by
/// 150,000 combining marks is one character of 300 KB, and a "30-character" nickname made of
/// them filled a teammate's event stream with megabytes. So every limit also caps the UTF-8
/// bytes (4 per allowed character, what the widest single scalar takes) and the Unicode scalars
/// in any one character (16: the longest RGI emoji ZWJ sequences have 10, Old Hangul syllables
/// 3 or 4, real combining-mark stacks a handful).
public struct TextLimit: Sendable, Equatable {
    /// Characters (grapheme clusters) allowed.
    public let characters: Int

    public static let bytesPerCharacter = 4
    public static let scalarsPerCharacter = 16

    public init(characters: Int) {
        self.characters = characters
    }

    /// The UTF-8 bytes allowed.
    public var bytes: Int { characters * Self.bytesPerCharacter }

    /// What `check` found.
    public enum Verdict: Sendable, Equatable {
        case fits
        /// More characters, or more bytes, than allowed.
        case tooLong
        /// A character made of more than `scalarsPerCharacter` scalars (stacked marks).
        case tooManyMarks
    }

    /// Measures `text`. Linear in its size and never reads past the byte cap: the byte count of
    /// a native string is known without scanning it.
    public func check(_ text: some StringProtocol) -> Verdict {
        guard text.utf8.count <= bytes else { return .tooLong }
        var count = 0
        for character in text {
            count += 1
            if count > characters { return .tooLong }
            if character.unicodeScalars.count > Self.scalarsPerCharacter { return .tooManyMarks }
        }
        return .fits
    }

    /// `text` cut to fit, for names a client gave that are kept rather than refused (file
    /// names): stacked marks beyond the cap are dropped, then whole characters past the limit.
    public func clamped(_ text: String) -> String {
        var result = ""
        var count = 0, bytes = 0
        for character in text {
            let kept = character.unicodeScalars.count > Self.scalarsPerCharacter
                ? String(String.UnicodeScalarView(character.unicodeScalars.prefix(Self.scalarsPerCharacter)))
                : String(character)
            if count == characters || bytes + kept.utf8.count > self.bytes { break }
            bytes += kept.utf8.count
            count += 1
            result += kept
        }
        return result
    }
}
