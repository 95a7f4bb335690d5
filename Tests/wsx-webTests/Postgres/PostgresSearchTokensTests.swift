import Testing
@testable import wsx_web

/// The full-text literals PostgreSQL gets for wsx's own tokens.
@Suite("PostgreSQL search tokens", .timeLimit(.minutes(5)))
struct PostgresSearchTokensTests {
    @Test("words weigh A, syllables B, bigrams C, each counted on, with a gap between runs")
    func vector() {
        #expect(PostgresSearchTokens.vector("Hi 회의합 it's") == "'hi':1A '회':2B '의':3B '합':4B '회의':2C '의합':3C 'it':2A 's':3A")
        #expect(PostgresSearchTokens.vector("회의 의합") == "'회':2B '의':3B '회의':2C '의':5B '합':6B '의합':4C",
                "the phrase 회의 <-> 의합 would need positions 2 and 3")
        #expect(PostgresSearchTokens.vector("") == "")
    }

    @Test("a query is every term: a syllable, a phrase of bigrams, or a word's start; quotes are text")
    func query() {
        #expect(PostgresSearchTokens.query("회 회의합 Meet") == "'회':B & ('회의':C <-> '의합':C) & 'meet':*A")
        #expect(PostgresSearchTokens.query("a\\b'c") == "'a':*A & 'b':*A & 'c':*A")
        #expect(PostgresSearchTokens.query("?!") == nil)
    }

    @Test("a word too long for PostgreSQL keeps its first 255 characters")
    func longWord() {
        let word = String(repeating: "a", count: 3000)
        #expect(PostgresSearchTokens.vector(word) == "'\(String(repeating: "a", count: 255))':1A")
    }
}
