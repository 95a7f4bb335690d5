/// Who a message can mention by what follows an `@`: the room's members by nickname, and the
/// groups `@here`, `@channel`, `@all` (also `@여기`, `@채널`, `@모두`).
///
/// The nicknames are kept in a trie of their characters (case folded), so finding the mention
/// at an `@` reads at most as many characters as the longest nickname and never backtracks:
/// the longest nickname that ends where a mention may end wins. A mention may end right
/// before Korean, the way Koreans write (`@민아님`, `@Bob님 확인 부탁드려요`, `@김민아씨`), and at
/// spaces and punctuation; it does not end inside a Latin word (`@Bobby` is not Bob).
public struct MentionDirectory: Sendable {
    /// What a mention points at.
    public enum Target: Sendable, Equatable {
        case member(Int64)
        case group(MentionGroup)
    }

    private struct Node: Sendable {
        var children: [String: Int] = [:]
        /// Who the nickname ending here is.
        var target: Target?
    }

    private var nodes = [Node()]

    public static let none = MentionDirectory([:])

    /// `nicknames` by member id; the same nickname twice mentions the first of them.
    public init(_ nicknames: [String: Int64]) {
        for group in MentionGroup.allCases {
            for word in group.words { insert(word, .group(group), replacing: false) }
        }
        // A member's nickname wins over a group word it happens to equal; the lowest id wins a tie.
        for (name, id) in nicknames.sorted(by: { $0.value < $1.value }) where !name.isEmpty {
            insert(name, .member(id), replacing: true)
        }
    }

    private mutating func insert(_ name: String, _ target: Target, replacing: Bool) {
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
        if nodes[node].target == nil || (replacing && !Self.isMember(nodes[node].target!)) {
            nodes[node].target = target
        }
    }

    private static func isMember(_ target: Target) -> Bool {
        if case .member = target { return true }
        return false
    }

    private static func fold(_ character: Character) -> String {
        String(character).lowercased()
    }

    /// The mention made by the characters from `start` (just after an `@`): what it points at,
    /// and where it ends.
    func mention(in chars: ArraySlice<Character>, after start: Int) -> (target: Target, end: Int)? {
        var node = 0, index = start
        var found: (target: Target, end: Int)?
        while index < chars.endIndex, let next = nodes[node].children[Self.fold(chars[index])] {
            node = next
            index += 1
            if let target = nodes[node].target, Self.mayEnd(chars, at: index) {
                found = (target, index)
            }
        }
        return found
    }

    /// A mention may end at the end of the text, before whitespace or punctuation (but `_` and
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

/// Mentions of many at once.
public enum MentionGroup: String, Sendable, CaseIterable, Hashable {
    /// The room's members with the app open (an event stream) when the message is sent.
    case here
    /// Every member of the room.
    case channel
    /// Every member of the room (the same as `channel`).
    case all

    /// The words that make it, in English and Korean.
    var words: [String] {
        switch self {
        case .here: ["here", "여기"]
        case .channel: ["channel", "채널"]
        case .all: ["all", "모두"]
        }
    }
}
