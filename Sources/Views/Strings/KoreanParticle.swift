/// Korean particles chosen for the word they follow: 을/를, 이/가, 은/는, 과/와, 으로/로, 아/야,
/// 이에요/예요, by whether the word's last sound ends in a consonant (a 받침), and for 으로/로
/// whether that consonant is ㄹ (then 로: 서울로). Texts ask for one with `{0:을}` (see
/// `Strings.format`), so a name is never followed by "을(를)".
enum KoreanParticle {
    /// Each particle as (after a final consonant, after a vowel).
    private static let pairs: [(String, String)] = [
        ("을", "를"), ("이", "가"), ("은", "는"), ("과", "와"), ("으로", "로"), ("아", "야"), ("이에요", "예요"),
    ]

    /// How a word ends, as far as particles care.
    enum Ending: Equatable {
        case vowel, consonant, rieul
    }

    /// The form of `particle` (either form may be given) that follows `word`; nil for an
    /// unknown particle.
    static func form(of particle: Substring, after word: String) -> String? {
        guard let pair = pairs.first(where: { $0.0 == particle || $0.1 == particle }) else { return nil }
        switch ending(of: word) {
        case .vowel: return pair.1
        case .consonant: return pair.0
        case .rieul: return pair.0 == "으로" ? pair.1 : pair.0
        }
    }

    /// How the last letter or digit of `word` sounds: a Hangul syllable by its 받침, a digit by
    /// its Korean reading (일, 삼, 육…), a Latin letter by the common reading of names (Team,
    /// Design, Mail end in a consonant; Ops, Apple in a vowel). Trailing punctuation and
    /// brackets are skipped.
    static func ending(of word: String) -> Ending {
        guard let last = word.unicodeScalars.last(where: { $0.properties.isAlphabetic || ("0"..."9").contains($0) }) else {
            return .vowel
        }
        switch last.value {
        case 0xAC00...0xD7A3:
            let final = (last.value - 0xAC00) % 28
            return final == 0 ? .vowel : final == 8 ? .rieul : .consonant
        case 0x30...0x39:
            switch last.value - 0x30 {
            case 1, 7, 8: return .rieul
            case 0, 3, 6: return .consonant
            default: return .vowel
            }
        default:
            switch Character(last).lowercased() {
            case "l": return .rieul
            case "m", "n": return .consonant
            default: return .vowel
            }
        }
    }
}
