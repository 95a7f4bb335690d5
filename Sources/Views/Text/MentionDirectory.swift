/// Who a message can mention by what follows an `@`: the room's members by nickname, and the
/// groups `@here`, `@channel`, `@all` (also `@여기`, `@채널`, `@모두`), found by `NameTrie`'s
/// rules (`@민아님` and `@Bob님 확인 부탁드려요` mention; `@Bobby` is not Bob).
public struct MentionDirectory: Sendable {
    /// What a mention points at.
    public enum Target: Sendable, Equatable {
        case member(Int64)
        case group(MentionGroup)
    }

    private var names = NameTrie<Target>()

    public static let none = MentionDirectory([:])

    /// `nicknames` by member id; the same nickname twice mentions the first of them.
    /// `givenNames` (`KoreanNames.givenNames`) mention their person where no nickname is the
    /// same; a one-syllable one only before 님, 씨, a space or punctuation (`@민님`, not `@민수`).
    public init(_ nicknames: [String: Int64], givenNames: [String: Int64] = [:]) {
        for group in MentionGroup.allCases {
            for word in group.words { names.insert(word) { $0 ?? .group(group) } }
        }
        // A member's nickname wins over a group word it happens to equal; the lowest id wins a tie.
        for (name, id) in nicknames.sorted(by: { $0.value < $1.value }) where !name.isEmpty {
            names.insert(name) { existing in
                if case .member = existing { return existing! }
                return .member(id)
            }
        }
        for (name, id) in givenNames.sorted(by: { $0.value < $1.value }) {
            names.insert(name, strict: name.count == 1) { existing in existing ?? .member(id) }
        }
    }

    /// The mention made by the characters from `start` (just after an `@`): what it points at,
    /// and where it ends.
    func mention(in chars: ArraySlice<Character>, after start: Int) -> (target: Target, end: Int)? {
        names.match(in: chars, at: start)
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
