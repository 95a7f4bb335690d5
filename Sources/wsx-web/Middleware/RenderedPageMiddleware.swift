import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Views

/// A page as rendered for one session: served again, byte for byte, while the database is
/// unchanged.
struct RenderedPage: Sendable {
    let headers: HTTPFields
    let body: ByteBuffer
    /// The room the page shows, whose view is noted each time it is served (`LastRooms`).
    var viewedRoom: Int64?

    /// Which pages may be kept: one session's view of one address, in one language.
    struct Key: Hashable, Sendable {
        let sessionId: Int64
        let lang: Lang
        /// Path and query.
        let target: String
    }

    /// The header a route sets on a page whose HTML depends only on the database, the session,
    /// the language and the address (no side effects, no one-time content). Never sent.
    static let reusableMarker = HTTPField.Name("X-WSX-Reusable-Page")!

    /// The header naming the room a reusable page shows. Never sent.
    static let viewedRoomMarker = HTTPField.Name("X-WSX-Viewed-Room")!

    /// The headers a route passes to mark its page reusable.
    static let reusable: HTTPFields = [reusableMarker: "1"]

    /// The headers of a reusable page of a room.
    static func reusable(viewing roomId: Int64?) -> HTTPFields {
        var headers = reusable
        if let roomId { headers[viewedRoomMarker] = String(roomId) }
        return headers
    }
}

/// Answers a signed-in GET from the `RenderedPage`s the routes marked reusable, when nothing was
/// committed since the page was rendered (`VersionedCache`). A reload, a second tab or switching
/// back to a channel in a quiet moment then costs no database read and no rendering; after any
/// write the page is rendered afresh, so what it shows is never older than a fresh render would.
///
/// Runs after `SessionMiddleware`, which still checks the session on every request.
struct RenderedPageMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let pages: VersionedCache<RenderedPage.Key, RenderedPage>
    let lastRooms: LastRooms
    /// The sessions and their people, read before this middleware: every page shows its viewer.
    let sessions: ReadRegion

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let visitor = context.visitor
        // A one-time notice is part of the page it is shown on.
        guard request.method == .get, let sessionId = visitor.session?.id, visitor.flash == nil else {
            return try await next(request, context)
        }
        let key = RenderedPage.Key(sessionId: sessionId, lang: visitor.lang, target: request.uri.description)
        if let page = pages.value(for: key) {
            if let roomId = page.viewedRoom, let userId = visitor.user?.id, request.isPersonViewing {
                await lastRooms.viewed(roomId: roomId, userId: userId)
            }
            return Response(status: .ok, headers: page.headers, body: ResponseBody(byteBuffer: page.body))
        }
        let readAt = pages.region.version
        let scope = ReadScope(for: pages.region)
        scope.include(sessions)
        var response = try await ReadScope.$current.withValue(scope) { try await next(request, context) }
        guard response.headers[RenderedPage.reusableMarker] != nil else { return response }
        response.headers[RenderedPage.reusableMarker] = nil
        let viewedRoom = response.headers[RenderedPage.viewedRoomMarker].flatMap { Int64($0) }
        response.headers[RenderedPage.viewedRoomMarker] = nil
        guard response.status == .ok, response.headers[.setCookie] == nil else { return response }
        let body = try await Self.bytes(of: response.body)
        response.body = ResponseBody(byteBuffer: body)
        pages.store(RenderedPage(headers: response.headers, body: body, viewedRoom: viewedRoom), for: key, readAt: readAt,
                    readIn: scope)
        return response
    }

    /// A response body's bytes (a rendered page's body is one buffer already).
    private static func bytes(of body: ResponseBody) async throws -> ByteBuffer {
        let collector = BodyCollector()
        try await body.write(collector)
        return collector.buffer
    }
}

/// Receives a response body in memory.
private final class BodyCollector: ResponseBodyWriter {
    var buffer = ByteBuffer()

    func write(_ part: ByteBuffer) async throws {
        guard buffer.readableBytes > 0 else { return buffer = part }
        var part = part
        buffer.writeBuffer(&part)
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
