import Foundation
import HTTPTypes
import Hummingbird
import Views

/// Turns view models into HTML responses, adding the chrome every page shares (viewer, language,
/// CSRF token, sidebar, notice, asset URLs).
struct Pages: Sendable {
    let renderer: PageRenderer
    let assets: StaticAssets
    /// The newest event id the hub delivered; pages carry it so the script's first connect
    /// resumes from there and misses nothing committed after the page was read.
    let lastEventId: @Sendable () -> Int64

    /// A full HTML page.
    func render<Page>(_ template: TemplateName, title: String, page: Page, request: Request,
                      context: some VisitorContext, status: HTTPResponse.Status = .ok,
                      headers: HTTPFields = [:]) -> Response {
        let html = renderer.document(template, title: title, page: page, chrome: chrome(request, context.visitor))
        return Self.html(html, status: status, headers: headers)
    }

    /// The error page for `status` with a message in the visitor's language.
    func error(status: HTTPResponse.Status, messageKey: String?, requestId: String?, request: Request,
               visitor: Visitor, headers: HTTPFields = [:]) -> Response {
        let strings = visitor.strings
        let code = status.code
        let heading = strings.table["error_\(code)_title"] ?? status.reasonPhrase
        let message = messageKey.map { strings[$0] } ?? strings.table["error_\(code)_body"] ?? status.reasonPhrase
        let page = ErrorPage(status: code, heading: heading, message: message, requestId: requestId)
        let html = renderer.document(.error, title: heading, page: page, chrome: chrome(request, visitor))
        return Self.html(html, status: status, headers: headers)
    }

    func chrome(_ request: Request, _ visitor: Visitor) -> Chrome {
        Chrome(lang: visitor.lang, csrfToken: visitor.csrfToken,
               viewer: visitor.user.map { Viewer(id: $0.id!, nickname: $0.nickname) },
               flash: visitor.flash, path: request.uri.path, lastEventId: visitor.user == nil ? nil : lastEventId(),
               cssURL: assets.url(for: "app.css"), jsURL: assets.url(for: "app.js"))
    }

    static func html(_ html: String, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentType] = "text/html; charset=utf-8"
        fields[.cacheControl] = "no-store"
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// POST-redirect-GET: `303 See Other` to a local path.
    static func redirect(to path: String) -> Response {
        Response(status: .seeOther, headers: [.location: path])
    }
}

/// Where a `next` parameter may send someone after signing in: only a path on this site.
enum LocalPath {
    static func validated(_ candidate: String?) -> String? {
        guard let candidate, candidate.hasPrefix("/"), !candidate.hasPrefix("//"), !candidate.hasPrefix("/\\"),
              !candidate.contains(where: { $0.isNewline || $0 == "\0" })
        else { return nil }
        return candidate
    }
}
