import Foundation
import HTTPTypes
import Hummingbird
import Views

/// Turns view models into HTML responses, adding the chrome every page shares (viewer, language,
/// CSRF token, sidebar, notice, asset URLs).
struct Pages: Sendable {
    let renderer: PageRenderer
    let assets: StaticAssets
    let sidebar: SidebarSource
    /// The newest event id the hub delivered; pages carry it so the script's first connect
    /// resumes from there and misses nothing committed after the page was read.
    let lastEventId: @Sendable () -> Int64
    /// Payments run in the sandbox: every page shows a banner saying so.
    var testPayments = false
    /// Web Push is on: signed-in pages load the script that subscribes, and say where.
    var webPush = false
    /// Layouts and room contents kept around their large parts.
    let spliced = SplicedPages()
    /// Each workspace's links, built once: fifteen routes formatted for every page showed in
    /// the home page's profile (6 µs of its 296).
    let workspaceLinks = BoundedMemo<Int64, WorkspaceLinks>(capacity: 4096)

    /// The tab icon, plain and with the unread dot.
    private var icons: (String, String) { (assets.url(for: "favicon.svg"), assets.url(for: "favicon-unread.svg")) }

    /// The scripts every page loads: the live connection, then the chat behaviour.
    private var scripts: [String] {
        [assets.url(for: "app.js"), assets.url(for: "chat.js"), assets.url(for: "drawer.js"), assets.url(for: "lightbox.js"),
         assets.url(for: "switcher.js"), assets.url(for: "reactions.js"), assets.url(for: "marks.js"),
         assets.url(for: "presence.js"), assets.url(for: "people-picker.js"), assets.url(for: "threads.js")]
            + (webPush ? [assets.url(for: "push.js")] : [])
    }

    /// What every page links for being installed: the manifest and the home screen icon; for
    /// signed-in pages with Web Push on, where the script finds the key and subscribes.
    private func describeApp(_ chrome: inout Chrome) {
        chrome.manifestURL = Paths.manifest()
        chrome.appleTouchIconURL = assets.url(for: "icons/apple-touch-icon.png")
        if webPush, chrome.viewer != nil {
            (chrome.pushKeyURL, chrome.pushSubscriptionsURL) = (Paths.pushKey(), Paths.pushSubscriptions())
        }
    }

    /// What the chrome reads from the database, when a page read it in its own read: the event
    /// id read before that read began, and the sidebar's lists.
    struct Preloaded: Sendable {
        let lastEventId: Int64
        var sidebar: SidebarLists
    }

    /// A full HTML page.
    func render<Page>(_ template: TemplateName, title: String, page: Page, request: Request,
                      context: some VisitorContext, place: PagePlace = .elsewhere, status: HTTPResponse.Status = .ok,
                      headers: HTTPFields = [:], preloaded: Preloaded? = nil, embedded: Bool = false) async throws -> Response {
        var chrome = try await chrome(request, context.visitor, place: place, preloaded: preloaded)
        chrome.isEmbedded = embedded
        let room = template == .room ? page as? RoomPage : nil
        let content = room.map { spliced.room(renderer, $0, chrome: chrome) }
            ?? SplicedPages.Content(renderer.content(template, page: page, chrome: chrome))
        return Self.html(spliced.document(renderer, title: title, content: content, chrome: chrome), status: status, headers: headers)
    }

    /// A full HTML page whose content is kept in `kept` by `key` (what it is a pure function of)
    /// and rendered from `page()` only when not kept there.
    func render<Page, Key>(_ template: TemplateName, title: String, kept: KeptContents<Key>, key: Key, page: () -> Page,
                           request: Request, context: some VisitorContext, place: PagePlace,
                           headers: HTTPFields = [:]) async throws -> Response {
        let chrome = try await chrome(request, context.visitor, place: place, preloaded: nil)
        let content = kept.content(renderer, template, key: key, chrome: chrome, page: page)
        return Self.html(spliced.document(renderer, title: title, content: .init(content), chrome: chrome), status: .ok, headers: headers)
    }

    /// The error page for `status` with a message in the visitor's language.
    func error(status: HTTPResponse.Status, messageKey: String?, arguments: [String] = [], requestId: String?,
               request: Request, visitor: Visitor, headers: HTTPFields = [:]) async -> Response {
        let strings = visitor.strings
        let code = status.code
        let heading = strings.table["error_\(code)_title"] ?? status.reasonPhrase
        let message = messageKey.map { strings.format($0, arguments: arguments) } ?? strings.table["error_\(code)_body"] ?? status.reasonPhrase
        // Scripts asked for JSON: the same message, in JSON.
        if request.headers[.accept]?.hasPrefix("application/json") == true {
            var fields = headers
            fields[.contentType] = "application/json; charset=utf-8"
            return Response(status: status, headers: fields,
                            body: .init(byteBuffer: ByteBuffer(string: OutgoingEvent.json(["error": message]))))
        }
        let page = ErrorPage(status: code, heading: heading, message: message, requestId: requestId)
        // The sidebar is a nicety here: an error page must render even when the database does not.
        let chrome = (try? await chrome(request, visitor, place: .elsewhere)) ?? bareChrome(request, visitor)
        return Self.html(renderer.document(.error, title: heading, page: page, chrome: chrome), status: status, headers: headers)
    }

    /// A fragment of a page for this visitor (their language and CSRF token), no layout.
    func fragment<Page>(_ template: TemplateName, page: Page, request: Request, visitor: Visitor) -> String {
        renderer.fragment(template, page: page, chrome: bareChrome(request, visitor))
    }

    private func chrome(_ request: Request, _ visitor: Visitor, place: PagePlace,
                        preloaded: Preloaded? = nil) async throws -> Chrome {
        guard let user = visitor.user else { return bareChrome(request, visitor) }
        // The event id is read before the sidebar (and after the page's own data would be fine
        // too): a later replay from this id can only repeat events, never skip one.
        let loaded: Preloaded
        if let preloaded {
            loaded = preloaded
        } else {
            let eventId = lastEventId()
            loaded = Preloaded(lastEventId: eventId, sidebar: try await sidebar.load(userId: user.id!, place: place))
        }
        var chrome = Chrome(lang: visitor.lang, csrfToken: visitor.csrfToken, viewer: Viewer(id: user.id!, nickname: user.nickname, notifyDefault: user.notifyDefault, isAdmin: user.isAdmin),
                      workspaces: loaded.sidebar.workspaces, rooms: loaded.sidebar.rooms, currentWorkspaceId: place.workspaceId,
                      flash: visitor.flash, path: request.uri.path, lastEventId: loaded.lastEventId,
                      cssURL: assets.url(for: "app.css"), scriptURLs: scripts, links: .site)
        chrome.workspace = place.workspaceId.map { id in workspaceLinks.value(for: id) { WorkspaceLinks(workspace: id) } }
        chrome.threadsUnread = loaded.sidebar.threadsUnread
        (chrome.roomsCountedThrough, chrome.threadsCountedThrough) = (loaded.sidebar.roomsCountedThrough, loaded.sidebar.threadsCountedThrough)
        chrome.mentionsUnread = loaded.sidebar.mentionsUnread
        (chrome.iconURL, chrome.unreadIconURL) = icons
        chrome.coinBalance = user.coinBalance
        chrome.testPayments = testPayments
        describeApp(&chrome)
        return chrome
    }

    private func bareChrome(_ request: Request, _ visitor: Visitor) -> Chrome {
        var chrome = Chrome(lang: visitor.lang, csrfToken: visitor.csrfToken,
                            viewer: visitor.user.map { Viewer(id: $0.id!, nickname: $0.nickname, notifyDefault: $0.notifyDefault, isAdmin: $0.isAdmin) },
                            flash: visitor.flash, path: request.uri.path, cssURL: assets.url(for: "app.css"), scriptURLs: scripts,
                            links: .site)
        (chrome.iconURL, chrome.unreadIconURL) = icons
        chrome.testPayments = testPayments
        describeApp(&chrome)
        return chrome
    }

    static func html(_ html: String, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        Self.html(ByteBuffer(string: html), status: status, headers: headers)
    }

    static func html(_ body: ByteBuffer, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentType] = "text/html; charset=utf-8"
        fields[.cacheControl] = "no-store"
        return Response(status: status, headers: fields, body: .init(byteBuffer: body))
    }

    /// A script's answer: `value` as compact JSON with sorted keys (as events carry it), never cached.
    static func json(_ value: some Encodable) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
                 body: .init(byteBuffer: ByteBuffer(string: OutgoingEvent.json(value))))
    }

    /// POST-redirect-GET: `303 See Other` to a local path.
    static func redirect(to path: String) -> Response {
        Response(status: .seeOther, headers: [.location: path])
    }
}
