/// A `LIKE` pattern that matches text containing `term` anywhere, with `%`, `_` and `\` in the
/// term taken literally (the query says `LIKE ? ESCAPE '\'`). SQL both backends run the same
/// way where SQLite's `instr` has no PostgreSQL twin; callers compare lowercased text, so
/// SQLite's ASCII-only case folding in `LIKE` changes nothing.
enum ContainsPattern {
    static func of(_ term: String) -> String {
        var pattern = "%"
        for character in term {
            if character == "\\" || character == "%" || character == "_" { pattern.append("\\") }
            pattern.append(character)
        }
        return pattern + "%"
    }
}
