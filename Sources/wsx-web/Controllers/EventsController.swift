import Foundation
import Hummingbird
import NIOCore
import ServiceLifecycle

/// `GET /events`: the signed-in browser's Server-Sent Events stream.
///
/// A client resuming (`Last-Event-ID` header, or `lastEventId` in the query on the first connect)
/// first gets every event it missed from the outbox, then the live ones, with no gap and no
/// duplicate: the hub subscription is opened first and says up to which id replay must go.
/// A resume point older than the retention window (or unknown) gets a `reset` event.
struct EventsController: Sendable {
    let hub: RealtimeHub
    let log: EventLog
    /// The `retry:` hint for reconnecting browsers.
    static let retryMilliseconds = 2000

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/events", use: stream)
    }

    @Sendable func stream(_ request: Request, context: AppRequestContext) async throws -> Response {
        // Not the login redirect pages get: EventSource must see a plain refusal.
        guard let user = context.visitor.user, let session = context.visitor.session else {
            return Response(status: .unauthorized, headers: [.contentType: "text/plain; charset=utf-8"],
                            body: .init(byteBuffer: ByteBuffer(string: "sign in first\n")))
        }
        let resumeFrom = request.headers[.init("Last-Event-ID")!]
            ?? request.uri.queryParameters["lastEventId"].map(String.init)
        let headers: HTTPFields = [
            .contentType: "text/event-stream; charset=utf-8",
            .cacheControl: "no-store",
            .init("X-Accel-Buffering")!: "no",
        ]
        let hub = self.hub, log = self.log
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            let subscription = await hub.subscribe(userId: user.id!, sessionId: session.id!)
            try await writer.write(SSEFrame.retry(milliseconds: Self.retryMilliseconds))
            if let resumeFrom {
                try await Self.replay(from: resumeFrom, subscription, userId: user.id!, log: log, writer: &writer)
            }
            // Ends when the client goes away, the hub disconnects it, or the server shuts down.
            try? await withGracefulShutdownHandler {
                try await request.body.consumeWithCancellationOnInboundClose { _ in
                    // Everything waiting goes out in one write.
                    while let frames = await subscription.frames.next() {
                        if frames.count == 1 {
                            try await writer.write(frames[0])
                        } else {
                            var batch = ByteBuffer()
                            batch.reserveCapacity(frames.reduce(0) { $0 + $1.readableBytes })
                            for frame in frames { batch.writeImmutableBuffer(frame) }
                            try await writer.write(batch)
                        }
                    }
                }
            } onGracefulShutdown: {
                Task { await hub.end(subscription.id) }
            }
            try await writer.finish(nil)
        })
    }

    /// Writes the events after `resumeFrom` up to the subscription's start, or `reset`.
    static func replay(from resumeFrom: String, _ subscription: RealtimeHub.Subscription, userId: Int64,
                       log: EventLog, writer: inout some ResponseBodyWriter) async throws {
        let through = subscription.handledThrough
        let prunedThrough = try log.database.read { db in try log.prunedThrough(db) }
        guard let start = Int64(resumeFrom.trimmingCharacters(in: .whitespaces)), start >= prunedThrough,
              start <= through
        else {
            try await writer.write(SSEFrame.event(id: nil, type: EventType.reset.rawValue, data: "{}"))
            return
        }
        var after = start
        while after < through {
            let rows = try await log.replay(after: after, through: through, userId: userId, rooms: subscription.rooms)
            guard let last = rows.last else { break }
            for row in rows {
                try await writer.write(SSEFrame.event(id: row.id, type: row.type, data: row.payload))
            }
            after = last.id
        }
    }
}
