import Foundation

/// How Koreans address colleagues: by given name, with or without 님 (`@민아님` for 김민아).
public enum KoreanNames {
    /// The given name in a 2–4-syllable Hangul nickname: all but its first syllable (the family
    /// name), e.g. 민아 in 김민아; nil for any other nickname (Latin, one syllable, with spaces).
    public static func givenName(of nickname: String) -> String? {
        let syllables = Array(nickname.precomposedStringWithCanonicalMapping)
        guard (2...4).contains(syllables.count), syllables.allSatisfy(isSyllable) else { return nil }
        return String(syllables.dropFirst())
    }

    /// The given names that name exactly one person of the workspace, for the room's members:
    /// a given name someone else in the workspace has (as theirs, or as their whole nickname)
    /// names nobody, so `@민아` stays text when 김민아 and 이민아 both work there.
    /// - Parameters:
    ///   - members: the room's members' nicknames and ids (who may be mentioned).
    ///   - workspace: everyone in the workspace, by id.
    public static func givenNames(of members: [String: Int64], workspace: [Int64: String]) -> [String: Int64] {
        var holders: [String: Set<Int64>] = [:]
        for (id, nickname) in workspace {
            holders[nickname.precomposedStringWithCanonicalMapping.lowercased(), default: []].insert(id)
            if let given = givenName(of: nickname) { holders[given, default: []].insert(id) }
        }
        var names: [String: Int64] = [:]
        for (nickname, id) in members {
            guard let given = givenName(of: nickname), holders[given] == [id] else { continue }
            names[given] = id
        }
        return names
    }

    static func isSyllable(_ character: Character) -> Bool {
        guard character.unicodeScalars.count == 1, let scalar = character.unicodeScalars.first else { return false }
        return (0xAC00...0xD7A3).contains(scalar.value)
    }
}
