import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
@testable import wsx_web

@Suite("CSRF, headers and error pages", .timeLimit(.minutes(5)))
struct SecurityTests {
    /// The nickname of the first account made (the only one where it is asked), as stored.
    static func firstNickname(_ app: TestSession) async throws -> String? {
        let id = Int64(try await app.count("SELECT MIN(id) FROM users"))
        return try app.database.query { tx in try tx.accounts.user(id: id)?.nickname }
    }

    @Test("a POST without the right CSRF token is refused with a 403 page and changes nothing")
    func csrfIsRequired() async throws {
        try await TestApp().run { app in
            let anonymous = app.browser()
            try await anonymous.get("/signup")
            let fields = [("email", "c@example.com"), ("nickname", "C"), ("password", "password1"), ("password_confirm", "password1")]
            for csrf in [TestBrowser.CSRF.none, .value("wrong"), .value(SecretToken.generate())] {
                let response = try await anonymous.post("/signup", fields, csrf: csrf)
                #expect(response.status == .forbidden)
                #expect(response.text.contains("The security token is missing or has expired."))
            }
            #expect(try await app.count("SELECT COUNT(*) FROM users") == 0)

            let member = try await app.signedInBrowser(nickname: "Unchanged")
            try await member.get("/profile")
            // The anonymous token of another browser is not this session's token.
            let stolen = try #require(anonymous.csrfToken)
            let forged = try await member.post("/profile", [("nickname", "Hacked"), ("phone", "")], csrf: .value(stolen))
            #expect(forged.status == .forbidden)
            let logout = try await member.post("/logout", csrf: .none)
            #expect(logout.status == .forbidden)
            #expect(try await Self.firstNickname(app) == "Unchanged")
            #expect(try await app.count("SELECT COUNT(*) FROM sessions") == 1)
        }
    }

    @Test("scripts may send the token in the X-CSRF-Token header")
    func csrfHeader() async throws {
        try await TestApp().run { app in
            let member = try await app.signedInBrowser(nickname: "Before")
            try await member.get("/profile")
            let token = try #require(member.csrfToken)
            let response = try await member.post("/profile", [("nickname", "After"), ("phone", "")], csrf: .none,
                                                 headers: [CSRFMiddleware.headerName: token])
            #expect(response.status == .seeOther)
            #expect(try await Self.firstNickname(app) == "After")
        }
    }

    @Test("every response carries the CSP, nosniff, a referrer policy and no framing",
          arguments: ["/login", "/healthz", "/static/app.css", "/no/such/page", "/profile"])
    func securityHeaders(path: String) async throws {
        try await TestApp().run { app in
            let response = try await app.browser().get(path)
            let csp = try #require(response.headers[.contentSecurityPolicy])
            #expect(csp.contains("default-src 'self'"))
            #expect(csp.contains("script-src 'self'"))
            #expect(csp.contains("frame-ancestors 'none'"))
            #expect(!csp.contains("unsafe-inline"))
            #expect(response.headers[.xContentTypeOptions] == "nosniff")
            #expect(response.headers[HTTPField.Name("Referrer-Policy")!] == "same-origin")
        }
    }

    @Test("unknown routes are a 404 page in the visitor's language")
    func notFoundPages() async throws {
        try await TestApp().run { app in
            let english = try await app.browser(acceptLanguage: "en").get("/no/such/page")
            #expect(english.status == .notFound)
            #expect(english.text.contains("Page not found"))
            let korean = try await app.browser(acceptLanguage: "ko-KR").get("/no/such/page")
            #expect(korean.status == .notFound)
            #expect(korean.text.contains("페이지를 찾을 수 없습니다"))
            #expect(korean.text.contains(#"<html lang="ko">"#))
        }
    }

    @Test("an unexpected error is a 500 page with a request id that is also in the log, never the error text")
    func internalErrors() async throws {
        struct Boom: Error, CustomStringConvertible { var description: String { "secret internals /etc/passwd" } }
        var test = TestApp()
        test.extraRoutes = { router in router.get("/test/boom") { _, _ -> String in throw Boom() } }
        try await test.run { app in
            let response = try await app.browser(acceptLanguage: "ko").get("/test/boom")
            #expect(response.status == .internalServerError)
            #expect(response.text.contains("문제가 발생했습니다"))
            #expect(!response.text.contains("secret internals"))
            let id = try #require(response.text.firstMatch(of: /<code>([0-9a-f]+)<\/code>/)?.1)
            #expect(app.logs.all.contains { $0.contains("request failed") && $0.contains(String(id)) && $0.contains("secret internals") })
        }
    }

    @Test("/healthz answers ok once the database is open, without touching sessions")
    func healthz() async throws {
        try await TestApp().run { app in
            let response = try await app.browser().get("/healthz")
            #expect(response.status == .ok)
            #expect(response.text == "ok\n")
            #expect(response.headers[.setCookie] == nil)
        }
    }

    @Test("static files have an ETag, a year of caching when versioned, 304 on revalidation, and no way out of Public/")
    func staticFiles() async throws {
        try await TestApp().run { app in
            let login = try await app.browser().get("/login")
            let cssURL = try #require(login.text.firstMatch(of: /href="(\/static\/app\.css\?v=[0-9a-f]+)"/)?.1)
            let css = try await app.browser().get(String(cssURL))
            #expect(css.status == .ok)
            #expect(css.headers[.contentType] == "text/css; charset=utf-8")
            #expect(css.headers[.cacheControl] == "public, max-age=31536000, immutable")
            let etag = try #require(css.headers[.eTag])
            #expect(try await app.browser().get("/static/app.css").headers[.cacheControl] == "no-cache")
            #expect(try await app.browser().get("/static/app.css", headers: [.ifNoneMatch: etag]).status == .notModified)
            for path in ["/static/../Package.swift", "/static/%2e%2e/Package.swift", "/static/.hidden", "/static/nope.css"] {
                #expect(try await app.browser().get(path).status == .notFound, "\(path)")
            }
        }
    }

    @Test("text files are sent Brotli- or gzip-compressed as the client accepts, from copies made at build time; pictures as they are")
    func compressedStaticFiles() async throws {
        try await TestApp().run { app in
            let browser = app.browser()
            let plain = try await browser.get("/static/app.js", headers: [.acceptEncoding: "identity"])
            #expect(plain.headers[.contentEncoding] == nil)
            #expect(plain.headers[.vary] == "Accept-Encoding")
            let brotli = try await browser.get("/static/app.js", headers: [.acceptEncoding: "gzip, deflate, br"])
            #expect(brotli.headers[.contentEncoding] == "br")
            #expect(brotli.headers[.vary] == "Accept-Encoding")
            #expect(brotli.body.readableBytes * 2 < plain.body.readableBytes)
            #expect(brotli.headers[.eTag] != plain.headers[.eTag])
            let etag = try #require(brotli.headers[.eTag])
            #expect(try await browser.get("/static/app.js", headers: [.acceptEncoding: "br", .ifNoneMatch: etag]).status == .notModified)
            // The other coding's tag is another representation: the whole file again.
            #expect(try await browser.get("/static/app.js", headers: [.acceptEncoding: "gzip", .ifNoneMatch: etag]).status == .ok)
            let gzip = try await browser.get("/static/app.css", headers: [.acceptEncoding: "gzip;q=1, br;q=0"])
            #expect(gzip.headers[.contentEncoding] == "gzip")
            #expect(Array(gzip.body.readableBytesView.prefix(2)) == [0x1f, 0x8b])
            // Compressed already: sent as it is, whatever the client accepts.
            let icon = try await browser.get("/static/icons/icon-192.png", headers: [.acceptEncoding: "br, gzip"])
            #expect(icon.status == .ok)
            #expect(icon.headers[.contentEncoding] == nil)
            #expect(icon.headers[.vary] == nil)
        }
    }
}

/// What is refused for its size, and how stored tokens are kept. The database's own settings (WAL,
/// foreign keys) are SQLite's test: `SQLite/LimitsSQLiteTests.swift`.
@Suite("Limits and storage", .timeLimit(.minutes(5)))
struct LimitsTests {
    @Test("a form body over 1 MB is refused with a 413 page and nothing is stored")
    func oversizedForm() async throws {
        try await TestApp().run { app in
            let browser = app.browser()
            try await browser.get("/signup")
            let huge = String(repeating: "a", count: CSRFMiddleware.maximumFormBytes + 10)
            let response = try await browser.post("/signup", [("email", "big@example.com"), ("nickname", huge),
                                                              ("password", "password1"), ("password_confirm", "password1")])
            #expect(response.status == .contentTooLarge)
            #expect(response.text.contains("What you sent is larger than allowed."))
            #expect(try await app.count("SELECT COUNT(*) FROM users") == 0)
        }
    }

    @Test("stored token hashes are the SHA-256 in lowercase hex")
    func tokenHashIsSHA256Hex() {
        #expect(SecretToken.hash("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SecretToken.hash("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }
}
