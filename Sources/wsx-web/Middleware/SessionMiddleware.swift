import Foundation
import Hummingbird
import Views

/// Works out who is asking before any route runs: the session behind the cookie (pushing its
/// expiry forward now and then), the UI language, the CSRF token forms must repeat, the
/// client's address, and a one-time notice left by the previous response.
struct SessionMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let sessions: SessionStore
    let cookies: CookiePolicy
    let trustProxy: Bool

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // The work happens in `identify`, whose frame is gone before the route runs: an event
        // stream keeps its connection task's deepest async frames allocated (heaptrack).
        let (context, outgoing) = try await identify(request, context)
        var response = try await next(request, context)
        // A cookie the route set itself (a new session at login, a new notice) wins over ours.
        let routeSet = Set(response.headers[values: .setCookie].compactMap { $0.split(separator: "=").first.map(String.init) })
        for cookie in outgoing where !routeSet.contains(cookie.name) {
            response.setCookie(cookie)
        }
        return response
    }

    /// The visitor behind the request, and the cookies the response must set or expire.
    @inline(never)
    private func identify(_ request: Request, _ context: Context) async throws -> (Context, [Cookie]) {
        var context = context
        var visitor = Visitor()
        var outgoing: [Cookie] = []
        let jar = RequestCookies(request)

        visitor.address = ClientAddress.of(request, peer: context.peerAddress, trustProxy: trustProxy)
        if let token = jar[CookiePolicy.session], !token.isEmpty {
            // Whatever another connection (the sqlite3 shell, a command) committed shows now.
            sessions.database.noticeOutsideWrites()
            if let (session, user) = try await sessions.find(token: token) {
                visitor.session = session
                visitor.user = user
                visitor.csrfToken = session.csrfToken
                // Pushing the expiry is a write; a disk that cannot take one must not stop reading.
                if let refreshed = try? await sessions.refreshIfDue(session) {
                    outgoing.append(cookies.make(CookiePolicy.session, token,
                                                 maxAge: SessionStore.cookieAge(refreshed, now: sessions.clock.now()), for: request))
                }
            } else {
                outgoing.append(cookies.expire(CookiePolicy.session, for: request))
            }
        }
        if visitor.session == nil {
            if let token = jar[CookiePolicy.anonymousCSRF], Self.isWellFormedToken(token) {
                visitor.csrfToken = token
            } else {
                visitor.csrfToken = SecretToken.generate()
                outgoing.append(cookies.make(CookiePolicy.anonymousCSRF, visitor.csrfToken, maxAge: nil, for: request))
            }
        }
        visitor.lang = visitor.user?.lang.flatMap(Lang.init(rawValue:))
            ?? jar[CookiePolicy.language].flatMap { Lang(rawValue: $0) }
            ?? Lang.preferred(byAcceptLanguage: request.headers[.acceptLanguage])
            ?? .fallback
        if Self.showsNotice(request), let key = jar[CookiePolicy.flash], !key.isEmpty {
            visitor.flash = visitor.strings.table[key]
            outgoing.append(cookies.expire(CookiePolicy.flash, for: request))
        }

        context.visitor = visitor
        return (context, outgoing)
    }

    /// Whether a request is a page the browser shows, and so takes the one-time notice a
    /// redirect left. A script's background read (the room lists, the unread counts, an event
    /// stream) can land between a form's redirect and the page it leads to; it must not take the
    /// notice away from that page. Browsers say what a request is for in `Sec-Fetch-Dest`;
    /// clients that do not send it are taken at their word that they show what they get.
    static func showsNotice(_ request: Request) -> Bool {
        guard request.method == .get || request.method == .head else { return false }
        guard let destination = request.headers[.init("Sec-Fetch-Dest")!] else { return true }
        // A navigation the service worker fetched for the page says `empty`, and its mode.
        return destination == "document" || request.headers[.init("Sec-Fetch-Mode")!] == "navigate"
    }

    static func isWellFormedToken(_ token: String) -> Bool {
        token.utf8.count == 43 && token.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }
}
