import Testing
@testable import wsx_web

/// Reading the `Cookie` header: what a browser sends, and what it should not be able to slip in.
@Suite("Request cookies", .timeLimit(.minutes(5)))
struct RequestCookiesTests {
    @Test("names are found across pairs and headers; the first pair with a name wins")
    func lookups() {
        let jar = RequestCookies(headers: ["wsx_session=abc; wsx_lang=ko;wsx_flash=saved", "wsx_lang=en; extra=1"])
        #expect(jar["wsx_session"] == "abc")
        #expect(jar["wsx_lang"] == "ko")
        #expect(jar["wsx_flash"] == "saved")
        #expect(jar["extra"] == "1")
        #expect(jar["absent"] == nil)
    }

    @Test("values keep everything after the first =, spaces before a name are dropped, pairs without = are skipped")
    func shapes() {
        let jar = RequestCookies(headers: ["  a=x=y; \tb=; c; d = 2; 이름=값"])
        #expect(jar["a"] == "x=y")
        #expect(jar["b"] == "")
        #expect(jar["c"] == nil)
        #expect(jar["d "] == " 2")
        #expect(jar["d"] == nil)
        #expect(jar["이름"] == "값")
        #expect(RequestCookies(headers: [])["a"] == nil)
        #expect(RequestCookies(headers: [";;"])["a"] == nil)
    }
}
