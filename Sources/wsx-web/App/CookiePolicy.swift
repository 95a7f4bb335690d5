import Foundation
import Hummingbird

/// Makes wsx's cookies, all `HttpOnly; SameSite=Lax; Path=/`, and `Secure` when the site is
/// served over HTTPS (`--secure-cookies`, or a trusted proxy saying `X-Forwarded-Proto: https`).
struct CookiePolicy: Sendable {
    static let session = "wsx_session"
    /// The CSRF token of visitors who are not signed in (double-submit: the form must repeat it).
    static let anonymousCSRF = "wsx_csrf"
    static let language = "wsx_lang"
    /// A one-time notice for the next page, holding a message key, never text.
    static let flash = "wsx_flash"

    let alwaysSecure: Bool
    let trustProxy: Bool

    func isSecure(_ request: Request) -> Bool {
        alwaysSecure || (trustProxy && request.headers[.init("X-Forwarded-Proto")!]?.lowercased() == "https")
    }

    func make(_ name: String, _ value: String, maxAge: Int?, for request: Request) -> Cookie {
        Cookie(name: name, value: value, maxAge: maxAge, path: "/", secure: isSecure(request), httpOnly: true,
               sameSite: .lax)
    }

    /// A one-time notice shown by the next page: `key` names a text of the strings table.
    func flash(_ key: String, for request: Request) -> Cookie {
        make(Self.flash, key, maxAge: 60, for: request)
    }

    /// POST-redirect-GET to `path`, with a one-time notice for the page there.
    func redirect(to path: String, flash key: String, for request: Request) -> Response {
        var response = Pages.redirect(to: path)
        response.setCookie(flash(key, for: request))
        return response
    }

    /// A cookie that tells the browser to forget `name`.
    func expire(_ name: String, for request: Request) -> Cookie {
        make(name, "", maxAge: 0, for: request)
    }
}
