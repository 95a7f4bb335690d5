import Foundation

/// Splits text into what the search index holds, so Korean (and Chinese and Japanese) can be
/// found by any substring of one syllable or more, and Latin words by prefix.
///
/// SQLite's `unicode61` tokenizer keeps Korean words whole with their particles (`회의를` is one
/// token, so `회의` finds nothing) and `trigram` needs three characters, yet most Korean words
/// are two syllables. So wsx tokenizes itself: every run of CJK characters becomes its unigrams
/// and its bigrams (in two columns, so adjacent bigrams form phrases: `회의합` is the phrase
/// `회의 의합`), and every run of other letters and digits a lowercase word.
enum SearchTokenizer {
    /// The index columns of one text.
    struct Document: Equatable {
        var words: [String] = []
        var unigrams: [String] = []
        var bigrams: [String] = []
    }

    static func isCJK(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0xAC00...0xD7A3, 0x1100...0x11FF, 0x3130...0x318F, 0xA960...0xA97F, 0xD7B0...0xD7FF: true // Hangul
        case 0x4E00...0x9FFF, 0x3400...0x4DBF, 0xF900...0xFAFF: true // CJK ideographs
        case 0x3040...0x309F, 0x30A0...0x30FF, 0x31F0...0x31FF, 0xFF66...0xFF9D: true // kana
        default: false
        }
    }

    /// The runs of `text`: CJK runs and word runs, lowercased, NFC.
    static func runs(_ text: String) -> [(isCJK: Bool, characters: [Character])] {
        var runs: [(Bool, [Character])] = []
        var current: [Character] = []
        var currentIsCJK = false
        func flush() {
            if !current.isEmpty { runs.append((currentIsCJK, current)) }
            current = []
        }
        // ASCII is NFC already (Foundation's normalization was 13 µs of a post).
        let normalized = text.utf8.allSatisfy { $0 < 0x80 } ? text : text.precomposedStringWithCanonicalMapping
        for character in normalized.lowercased() {
            guard let scalar = character.unicodeScalars.first else { continue }
            if isCJK(scalar) {
                if !currentIsCJK { flush() }
                currentIsCJK = true
                current.append(character)
            } else if character.isLetter || character.isNumber {
                if currentIsCJK { flush() }
                currentIsCJK = false
                current.append(character)
            } else {
                flush()
            }
        }
        flush()
        return runs
    }

    static func document(_ text: String) -> Document {
        var document = Document()
        for run in runs(text) {
            if run.isCJK {
                document.unigrams += run.characters.map { String($0) }
                if run.characters.count > 1 {
                    for index in 0..<(run.characters.count - 1) {
                        document.bigrams.append(String(run.characters[index...index + 1]))
                    }
                }
            } else {
                document.words.append(String(run.characters))
            }
        }
        return document
    }

    /// An FTS5 query for `text`: every term must match. CJK runs of one character match a
    /// unigram, longer ones the phrase of their bigrams; words match as prefixes. Every token is
    /// quoted, so nothing a person types is read as FTS syntax. Nil when nothing searchable.
    static func query(_ text: String) -> String? {
        var terms: [String] = []
        for run in runs(text) {
            if run.isCJK {
                if run.characters.count == 1 {
                    terms.append("uni : \(quote(String(run.characters[0])))")
                } else {
                    let bigrams = (0..<(run.characters.count - 1)).map { quote(String(run.characters[$0...$0 + 1])) }
                    terms.append("bi : " + bigrams.joined(separator: " + "))
                }
            } else {
                terms.append("words : \(quote(String(run.characters)))*")
            }
        }
        return terms.isEmpty ? nil : terms.joined(separator: " AND ")
    }

    static func quote(_ token: String) -> String {
        "\"" + token.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
