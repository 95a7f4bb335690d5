import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import wsx_web

/// Class: a `next` address that leaves the site. Every place that redirects to a `next` (GET and
/// POST `/login`, `POST /lang`) goes through `LocalPath`, so each payload is tried on each.
@Suite("Open redirects", .timeLimit(.minutes(5)))
struct OpenRedirectTests {
    /// Known open-redirect payloads, as the decoded value of `next`. Browsers drop TAB, CR and
    /// LF from a `Location` and read `\` as `/`, so all of these can end up on another host.
    static let payloads = [
        "//evil.example", "///evil.example", "////evil.example/", "/\\evil.example", "\\\\evil.example", "\\/evil.example",
        "/\t/evil.example", "/\n/evil.example", "/\r\n/evil.example", "/\r/evil.example", "\t//evil.example",
        "/ /evil.example", " //evil.example", "/\u{0B}/evil.example", "/\u{0C}/evil.example", "/\0/evil.example",
        "https://evil.example", "http:evil.example", "//evil.example/%2e%2e", "javascript:alert(1)",
        "/\u{3000}/evil.example", "/\u{FF0F}evil.example", "/\u{2215}evil.example", "/\u{200B}/evil.example",
        "/%09/evil.example".removingPercentEncoding!, "evil.example", "", "/\u{7F}/evil.example",
        "/" + String(repeating: "a", count: 2100),
    ]

    static let safe = ["/profile", "/", "/w/1/c/2?around=5&edit=5#m-5", "/w/1/search?q=%ED%9A%8C%EC%9D%98"]

    @Test("LocalPath accepts only a visible-ASCII path with exactly one leading slash", arguments: payloads)
    func refusesPayload(_ payload: String) {
        #expect(LocalPath.validated(payload) == nil)
    }

    @Test("LocalPath keeps the site's own paths", arguments: safe)
    func keepsLocalPath(_ path: String) {
        #expect(LocalPath.validated(path) == path)
    }

    @Test("GET /login?next=, POST /login and POST /lang never send anyone off the site")
    func everyRedirectIsLocal() async throws {
        try await TestApp().run { app in
            _ = try await app.signedInBrowser(email: "next@example.com", password: "correct horse")
            var allowed = CharacterSet.alphanumerics
            allowed.insert(charactersIn: "-._~")
            for payload in Self.payloads {
                let encoded = payload.addingPercentEncoding(withAllowedCharacters: allowed)!

                let visitor = app.browser()
                let form = try await visitor.get("/login?next=\(encoded)")
                #expect(form.status == .ok)
                // The only `next` on the page is the language switch's, back to this page.
                #expect(form.text.ranges(of: #"name="next""#).count == 1, "the form carried \(payload.debugDescription)")

                let login = try await visitor.post("/login", [("email", "next@example.com"), ("password", "correct horse"),
                                                              ("next", payload)])
                #expect(login.status == .seeOther)
                #expect(login.location == "/workspaces", "login with next=\(payload.debugDescription)")

                // Signed in now: the form itself redirects at once.
                let again = try await visitor.get("/login?next=\(encoded)")
                #expect(again.location == "/", "GET /login with next=\(payload.debugDescription)")

                try await visitor.get("/workspaces")   // the signed-in session's CSRF token
                let lang = try await visitor.post("/lang", [("lang", "ko"), ("next", payload)])
                #expect(lang.status == .seeOther && lang.location == "/", "POST /lang with next=\(payload.debugDescription)")
            }
            // And a local path is honoured everywhere.
            let visitor = app.browser()
            let login = try await visitor.post("/login", [("email", "next@example.com"), ("password", "correct horse"),
                                                          ("next", "/profile")])
            #expect(login.location == "/profile")
            try await visitor.get("/profile")
            #expect(try await visitor.post("/lang", [("lang", "en"), ("next", "/w/1/c/2?around=5")]).location == "/w/1/c/2?around=5")
        }
    }
}
