import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// `GET /metrics`: the server's numbers in Prometheus' text format, for a scraper that shows the
/// bearer token (`--metrics-token`), or for a client on this machine that did not come through a
/// proxy (loopback, and no forwarding header of any proxy: `X-Forwarded-For`, `X-Real-IP`,
/// `Forwarded`, …). Anyone else gets a 404: the page is not advertised.
struct MetricsController: Sendable {
    let metrics: ServerMetrics
    let hub: RealtimeHub
    let database: AppDatabase
    let events: EventLog
    let mail: MailOutbox
    let token: String?

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get(Paths.metrics.routerPath, use: scrape)
    }

    @Sendable func scrape(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard allows(request, peer: context.peerAddress) else {
            if token != nil, request.headers[.authorization] != nil {
                return Response(status: .unauthorized, headers: [.wwwAuthenticate: "Bearer"])
            }
            return Response(status: .notFound)
        }
        let lag = max(0, try events.latestId() - hub.latestEventId)
        let text = metrics.exposition(openStreams: await hub.subscriberCount, outboxLag: lag, mailQueue: try mail.queueLength(),
                                      mailFailed: try mail.failedCount())
        return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                        body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// Whether this request may read the numbers.
    func allows(_ request: Request, peer: String?) -> Bool {
        // The scheme's name is case-insensitive (RFC 9110 11.1): `bearer` is `Bearer`.
        if let token, let offered = request.headers[.authorization], offered.lowercased().hasPrefix("bearer ") {
            return SecretToken.constantTimeEquals(offered.dropFirst(7).trimmingCharacters(in: .whitespaces), token)
        }
        guard !ClientAddress.cameThroughProxy(request), let peer else { return false }
        return peer == "::1" || peer.hasPrefix("127.") || peer.hasPrefix("::ffff:127.")
    }
}
