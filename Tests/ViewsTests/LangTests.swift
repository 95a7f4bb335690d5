import Testing
@testable import Views

@Suite("Language negotiation")
struct LangTests {
    @Test("Accept-Language picks Korean or English by q-value and order", arguments: [
        ("ko-KR,ko;q=0.9,en-US;q=0.8,en;q=0.7", Lang.ko),
        ("en-US,en;q=0.9", Lang.en),
        ("fr-FR,fr;q=0.9,en;q=0.5,ko;q=0.8", Lang.ko),
        ("en;q=0.5, ko;q=0.9", Lang.ko),
        ("KO", Lang.ko),
        ("fr-FR, en-GB;q=0.1", Lang.en),
    ])
    func picksPreferred(header: String, expected: Lang) {
        #expect(Lang.preferred(byAcceptLanguage: header) == expected)
    }

    @Test("neither language, a zero q-value or no header give no preference", arguments: ["fr-FR,de;q=0.9", "ko;q=0", "", "*"])
    func noPreference(header: String) {
        #expect(Lang.preferred(byAcceptLanguage: header) == nil)
    }

    @Test("formatting fills numbered placeholders")
    func formatting() {
        #expect(Lang.en.strings.format("login_throttled", 42) == "Too many failed attempts. Try again in 42 seconds.")
        #expect(Lang.ko.strings.format("welcome", "민아") == "환영합니다, 민아님!")
        // An argument is inserted as it is, even when it looks like a placeholder.
        #expect(Lang.en.strings.format("welcome", "{0} {x} {") == "Welcome, {0} {x} {!")
        #expect(Lang.en.strings.format("welcome", "{0:을} {0:xyz}") == "Welcome, {0:을} {0:xyz}!")
    }
}
