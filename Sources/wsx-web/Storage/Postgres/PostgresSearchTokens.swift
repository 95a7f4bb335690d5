import Foundation

/// `SearchTokenizer`'s tokens as PostgreSQL full-text values: a message's document as a
/// `tsvector` literal with positions, and a search as a `tsquery` literal, both cast as they
/// are (no dictionary, no stemming: the tokens are already what is matched).
///
/// The FTS5 table's three columns become weights: words A, unigrams B, bigrams C. Positions count
/// within each kind, and a run of CJK text starts one position after the previous run ended,
/// so a phrase of bigrams (`회의 <-> 의합` for `회의합`) matches adjacent bigrams of one run,
/// never the end of one run and the start of the next.
enum PostgresSearchTokens {
    /// PostgreSQL refuses lexemes over 2 KB; a longer word is kept as its first 255 characters,
    /// which still answers every prefix search up to that length.
    static let longestWord = 255
    /// Positions above this are stored as this (PostgreSQL's limit).
    static let lastPosition = 16_383

    /// The `tsvector` literal of `text`'s tokens.
    static func vector(_ text: String) -> String {
        var lexemes: [String] = []
        var positions = (words: 0, unigrams: 0, bigrams: 0)
        for run in SearchTokenizer.runs(text) {
            if run.isCJK {
                positions.unigrams += 1
                positions.bigrams += 1
                for character in run.characters {
                    positions.unigrams += 1
                    lexemes.append(lexeme(String(character), at: positions.unigrams, weight: "B"))
                }
                for index in run.characters.indices.dropLast() {
                    positions.bigrams += 1
                    lexemes.append(lexeme(String(run.characters[index...index + 1]), at: positions.bigrams, weight: "C"))
                }
            } else {
                positions.words += 1
                lexemes.append(lexeme(String(run.characters.prefix(longestWord)), at: positions.words, weight: "A"))
            }
        }
        return lexemes.joined(separator: " ")
    }

    /// The `tsquery` literal that finds messages with every term of `text`, as
    /// `SearchTokenizer.query` does on FTS5: one CJK character matches a unigram, a longer run
    /// the phrase of its bigrams, a word any word it begins. Nil when nothing is searchable.
    static func query(_ text: String) -> String? {
        var terms: [String] = []
        for run in SearchTokenizer.runs(text) {
            if run.isCJK {
                if run.characters.count == 1 {
                    terms.append(quoted(String(run.characters[0])) + ":B")
                } else {
                    let bigrams = run.characters.indices.dropLast().map { quoted(String(run.characters[$0...$0 + 1])) + ":C" }
                    terms.append("(" + bigrams.joined(separator: " <-> ") + ")")
                }
            } else {
                terms.append(quoted(String(run.characters.prefix(longestWord))) + ":*A")
            }
        }
        return terms.isEmpty ? nil : terms.joined(separator: " & ")
    }

    private static func lexeme(_ token: String, at position: Int, weight: String) -> String {
        "\(quoted(token)):\(min(position, lastPosition))\(weight)"
    }

    /// A lexeme quoted for a `tsvector` or `tsquery` literal: quotes doubled, backslashes escaped.
    private static func quoted(_ token: String) -> String {
        "'" + token.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "''") + "'"
    }
}
