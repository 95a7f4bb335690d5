/// Names (nicknames, channel names) in a trie of their characters, case folded, for finding
/// the name that starts at a position of a text: it reads at most as many characters as the
/// longest name and never backtracks, and the longest name that ends where a name may end
/// wins. A name may end right before Korean, the way Koreans write (`@민아님`, `#개발에서`),
/// and at spaces and punctuation; it does not end inside a Latin word (`@Bobby` is not Bob).
struct NameTrie<Target: Sendable>: Sendable {
    private struct Node: Sendable {
        var children: [String: Int] = [:]
        /// What the name ending here names.
        var target: Target?
        /// The name may end only before an honorific (님, 씨), a space, punctuation or the end.
        var strict = false
    }

    private var nodes = [Node()]

    /// Files `name` under what `choose` makes of what it named so far (nil: nothing); a
    /// `strict` name (a new one) ends only where `mayEndStrictly` says.
    mutating func insert(_ name: String, strict: Bool = false, choose: (Target?) -> Target) {
        var node = 0
        for character in name {
            let key = Self.fold(character)
            if let next = nodes[node].children[key] {
                node = next
            } else {
                nodes.append(Node())
                nodes[node].children[key] = nodes.count - 1
                node = nodes.count - 1
            }
        }
        if nodes[node].target == nil { nodes[node].strict = strict }
        nodes[node].target = choose(nodes[node].target)
    }

    private static func fold(_ character: Character) -> String {
        String(character).lowercased()
    }

    /// The name that starts at `start`: what it names, and where it ends.
    func match(in chars: ArraySlice<Character>, at start: Int) -> (target: Target, end: Int)? {
        var node = 0, index = start
        var found: (target: Target, end: Int)?
        while index < chars.endIndex, let next = nodes[node].children[Self.fold(chars[index])] {
            node = next
            index += 1
            if let target = nodes[node].target,
               nodes[node].strict ? Self.mayEndStrictly(chars, at: index) : Self.mayEnd(chars, at: index) {
                found = (target, index)
            }
        }
        return found
    }

    /// A name may end at the end of the text, before whitespace or punctuation (but `_` and
    /// `-`, which continue names), and before any letter unless both it and the letter before
    /// are Latin-like (letters and digits outside Hangul and CJK): `@Bob님` ends after Bob,
    /// `@Bobby` does not.
    private static func mayEnd(_ chars: ArraySlice<Character>, at index: Int) -> Bool {
        guard index < chars.endIndex else { return true }
        let next = chars[index]
        if next.isWhitespace || next.isSymbol { return true }
        if next.isPunctuation { return next != "_" && next != "-" }
        return !(isWordy(chars[index - 1]) && isWordy(next))
    }

    /// A short name ends only at the end, before a space, punctuation or an honorific: `@민님`
    /// and `@민,` but not `@민수` (another word that starts the same).
    private static func mayEndStrictly(_ chars: ArraySlice<Character>, at index: Int) -> Bool {
        guard index < chars.endIndex else { return true }
        let next = chars[index]
        if next == "님" || next == "씨" { return true }
        return !(next.isLetter || next.isNumber) && mayEnd(chars, at: index)
    }

    /// A letter or digit of a script written with spaces between words (not Hangul, kana or
    /// Han, after which Korean particles and Japanese run straight on).
    private static func isWordy(_ character: Character) -> Bool {
        guard character.isLetter || character.isNumber, let scalar = character.unicodeScalars.first else { return false }
        switch scalar.value {
        case 0x1100...0x11FF, 0x3130...0x318F, 0xA960...0xA97F, 0xAC00...0xD7AF, 0xD7B0...0xD7FF, // Hangul
             0x3040...0x30FF, 0x31F0...0x31FF, // kana
             0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF, 0x20000...0x3FFFF: // Han
            return false
        default:
            return true
        }
    }
}
