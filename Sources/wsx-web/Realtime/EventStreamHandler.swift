import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOPosix
import Prometheus

/// Serves a signed-in browser's `GET /events` stream on the connection's event loop, below the
/// router.
///
/// Why below the router: a Hummingbird response that never ends keeps its connection task, and
/// with it the task's deepest async frames, for as long as the stream is open (heaptrack: 52 KB
/// per stream), and every delivered event cost a task wake-up and an async write. Here an open
/// stream is this handler's few fields, and the hub hands each event loop one closure per event
/// that writes the same bytes to all of that loop's streams. The response is close-delimited (no
/// chunked framing, valid for HTTP/1.0 proxies too), so those bytes are the SSE frames themselves
/// and go to the socket from a handler in front of the HTTP/1 encoder.
///
/// Requests it does not take (anything but `GET /events` with a live session cookie) pass on
/// unchanged, so the router answers them, including the 401 for a stream without a session.
///
/// A resuming client (`Last-Event-ID`, or `lastEventId` in the query on the first connect) first
/// gets every event it missed from the outbox, then the live ones, with no gap and no duplicate:
/// the hub subscription is opened first and says up to which id replay must go; live frames that
/// arrive meanwhile are held until replay is written. A resume point older than the retention
/// window (or unknown) gets a `reset` event. A stream whose unsent bytes pass the buffer limit is
/// a slow reader: it is closed (never skipped) and the browser reconnects and replays.
final class EventStreamHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// What the handler needs from the app.
    struct Dependencies: Sendable {
        let hub: RealtimeHub
        let log: EventLog
        /// Where replay's pages are read: the database's own threads, never the shared pool where
        /// host names are looked up, which a slow resolver holds for seconds.
        let readers: ReaderThreads
        let sessions: SessionStore
        let settings: RealtimeHub.Settings
        let flushers: StreamFlushers
        let metrics: ServerMetrics
        let logger: Logger
    }

    /// The `retry:` hint for reconnecting browsers.
    static let retryMilliseconds = 2000

    /// A stream request this handler will serve.
    private struct StreamRequest {
        let userId: Int64
        let sessionId: Int64
        let resumeFrom: String?
    }

    /// Where replay stands: rows fetched but not yet written, and the last id fetched.
    private struct Replay {
        var after: Int64
        let through: Int64
        let userId: Int64
        let rooms: [Int64]
        var rows: ArraySlice<EventLog.Row> = []
    }

    private enum State {
        /// Requests go on to the router; `owed` of them still have a response being written.
        case passing(owed: Int)
        /// A stream was asked for behind `owed` responses still being written (pipelining): it
        /// opens once they have ended.
        case waiting(StreamRequest, owed: Int)
        /// The hub subscription is being opened.
        case subscribing
        /// Missed events are being written.
        case replaying(Replay)
        /// Live frames are written as the hub hands them over.
        case live
        /// The stream ended; nothing more is written.
        case ended
    }

    private let dependencies: Dependencies
    private var state = State.passing(owed: 0)
    /// Where the stream's bytes are written: in front of the HTTP/1 encoder, once the stream is open.
    private var context: ChannelHandlerContext?
    private var subscriptionId: Int?
    /// Live frames that arrived while subscribing or replaying, written right after replay.
    private var held: [ByteBuffer] = []
    private var heldBytes = 0
    private var needsFlush = false
    private var isFlushingReplay = false
    /// A page of replay is being read off the event loop.
    private var isFetchingReplay = false

    /// The connection's clocks and counts (`ConnectionWatch`), told of every part that passes.
    private let watch: ConnectionWatch?

    init(_ dependencies: Dependencies, watch: ConnectionWatch? = nil) {
        self.dependencies = dependencies
        self.watch = watch
    }

    func handlerAdded(context: ChannelHandlerContext) {
        watch?.http = context
    }

    /// Breaks the cycle through the watch (it holds this handler's context), so a closed
    /// connection is freed.
    func handlerRemoved(context: ChannelHandlerContext) {
        watch?.http = nil
    }

    // MARK: Requests

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        if let watch, !watch.read(part) { return }
        switch state {
        case .passing(let owed):
            if case .head(let head) = part, let stream = streamRequest(head) {
                if owed == 0 {
                    open(stream, context: context)
                } else {
                    state = .waiting(stream, owed: owed)
                }
                return
            }
            if case .head = part { state = .passing(owed: owed + 1) }
            context.fireChannelRead(data)
        case .waiting, .subscribing, .replaying, .live, .ended:
            // The stream's own request end, or a client talking over its stream: nothing for the router.
            break
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // Responses from the router pass through; count them off so a waiting stream can start.
        let part = unwrapOutboundIn(data)
        if let watch, case .end = part {
            // Known once the end is on the socket: a held pipelined request is read then, and a
            // `Connection: close` response closes.
            let closing = watch.writing(part)
            let written = promise ?? context.eventLoop.makePromise()
            written.futureResult.assumeIsolated().whenComplete { _ in
                watch.responseFlushed()
                if closing { context.close(promise: nil) }
            }
            context.write(data, promise: written)
        } else {
            _ = watch?.writing(part)
            context.write(data, promise: promise)
        }
        guard case .end = part else { return }
        switch state {
        case .passing(let owed):
            state = .passing(owed: max(0, owed - 1))
        case .waiting(let stream, let owed):
            if owed <= 1 {
                open(stream, context: context)
            } else {
                state = .waiting(stream, owed: owed - 1)
            }
        default:
            break
        }
    }

    /// The stream this request asks for, when it is `GET /events` with a live session.
    private func streamRequest(_ head: HTTPRequest) -> StreamRequest? {
        guard head.method == .get, let target = head.path else { return nil }
        let uri = URI(target)
        guard uri.path == Paths.events.pattern else { return nil }
        let token = Cookies(from: head.headerFields[values: .cookie])[CookiePolicy.session]?.value ?? ""
        guard !token.isEmpty,
              let (session, user) = try? dependencies.sessions.find(token: token),
              let sessionId = session.id, let userId = user.id
        else { return nil }
        let resumeFrom = head.headerFields[.init("Last-Event-ID")!]
            ?? uri.queryParameters["lastEventId"].map(String.init)
        return StreamRequest(userId: userId, sessionId: sessionId, resumeFrom: resumeFrom)
    }

    // MARK: Opening

    /// The status line, headers and `retry:` hint of every stream, written as they are.
    static let responseHead: ByteBuffer = {
        var headers: HTTPFields = [
            .contentType: "text/event-stream; charset=utf-8",
            .cacheControl: "no-store",
            .init("X-Accel-Buffering")!: "no",
            .connection: "close",
        ]
        SecurityHeaders.add(to: &headers)
        var head = ByteBuffer(string: "HTTP/1.1 200 OK\r\n")
        for field in headers { head.writeString("\(field.name.rawName): \(field.value)\r\n") }
        head.writeString("\r\n")
        var retry = SSEFrame.retry(milliseconds: retryMilliseconds)
        head.writeBuffer(&retry)
        return head
    }()

    private func open(_ stream: StreamRequest, context: ChannelHandlerContext) {
        state = .subscribing
        watch?.becameStream()
        do {
            let pipeline = context.pipeline.syncOperations
            let wire = WireBytes()
            try pipeline.addHandler(wire, position: .before(try pipeline.handler(type: HTTPResponseEncoder.self)))
            self.context = try pipeline.context(handler: wire)
        } catch {
            dependencies.logger.error("cannot open an event stream on this pipeline", metadata: ["error": "\(error)"])
            state = .ended
            context.close(promise: nil)
            return
        }
        let limit = dependencies.settings.bufferBytes
        context.channel.setOption(ChannelOptions.writeBufferWaterMark,
                                  value: .init(low: limit / 2, high: limit)).whenFailure { _ in }

        let hub = dependencies.hub
        let handle = EventStreamHandle(handler: self, eventLoop: context.eventLoop,
                                       flusher: dependencies.flushers.flusher(on: context.eventLoop))
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        Task {
            let subscription = await hub.subscribe(userId: stream.userId, sessionId: stream.sessionId, stream: handle)
            loopBound.eventLoop.execute {
                loopBound.value.subscribed(subscription, resumeFrom: stream.resumeFrom, userId: stream.userId)
            }
        }
    }

    /// On the event loop, once the hub knows the stream.
    private func subscribed(_ subscription: RealtimeHub.Subscription, resumeFrom: String?, userId: Int64) {
        subscriptionId = subscription.id
        guard case .subscribing = state else {
            // The browser left (or the hub ended the stream) while subscribing.
            release()
            return
        }
        // The head goes out only now, so a browser's `open` means the hub already delivers to
        // this stream: what the page reads after it (the presence snapshot) misses nothing.
        write(Self.responseHead)
        flushIfNeeded()
        guard let resumeFrom else { return goLive() }
        guard let context else { return end() }
        // How far retention pruned the log is read off the loop, as replay's pages are; live
        // frames are held meanwhile.
        let log = dependencies.log
        dependencies.readers.run(on: context.eventLoop) {
            try log.prunedThrough()
        }.assumeIsolated().whenComplete { result in
            // The browser left, or the hub ended the stream, while it was read.
            guard case .subscribing = self.state else { return }
            self.replay(from: resumeFrom, through: subscription.handledThrough, prunedThrough: (try? result.get()) ?? .max,
                        userId: userId, rooms: subscription.rooms)
        }
    }

    /// Replays the events after `resumeFrom`, or says `reset` when they are gone (or the id is not one).
    private func replay(from resumeFrom: String, through: Int64, prunedThrough: Int64, userId: Int64, rooms: [Int64]) {
        guard let start = Int64(resumeFrom.trimmingCharacters(in: .whitespaces)), start >= prunedThrough, start <= through
        else {
            write(SSEFrame.event(id: nil, type: EventType.reset.rawValue, data: "{}"))
            return goLive()
        }
        state = .replaying(Replay(after: start, through: through, userId: userId, rooms: rooms))
        continueReplay()
    }

    /// Writes missed events while the socket takes them; `channelWritabilityChanged` resumes it
    /// once the socket drained, and each page of rows is read on a thread of its own, so an event
    /// loop (which carries hundreds of other streams) never waits for the database.
    private func continueReplay() {
        guard !isFlushingReplay, !isFetchingReplay, case .replaying(var replay) = state, let context else { return }
        while true {
            while context.channel.isWritable, !(replay.rows.isEmpty && replay.after >= replay.through) {
                if replay.rows.isEmpty {
                    state = .replaying(replay)
                    return fetchReplayPage(replay, context: context)
                }
                let row = replay.rows.removeFirst()
                write(SSEFrame.event(id: row.id, type: row.type, data: row.payload))
            }
            if replay.rows.isEmpty, replay.after >= replay.through { return goLive() }
            state = .replaying(replay)
            // Flushing can drain the socket and report writability at once: not a second writer.
            isFlushingReplay = true
            flushIfNeeded()
            isFlushingReplay = false
            guard context.channel.isWritable, case .replaying(let current) = state else { return }
            replay = current
        }
    }

    /// Reads the next page of missed events off the event loop, then goes on writing on it.
    private func fetchReplayPage(_ replay: Replay, context: ChannelHandlerContext) {
        isFetchingReplay = true
        let log = dependencies.log
        let (after, through, userId, rooms) = (replay.after, replay.through, replay.userId, replay.rooms)
        dependencies.readers.run(on: context.eventLoop) {
            try log.replay(after: after, through: through, userId: userId, rooms: rooms)
        }.assumeIsolated().whenComplete { result in
            self.isFetchingReplay = false
            // The browser left, or the hub ended the stream, while the page was read.
            guard case .replaying(var current) = self.state else { return }
            switch result {
            case .success(let rows):
                // No rows left means the rest of the ids went to other audiences.
                current.after = rows.last?.id ?? current.through
                current.rows = rows[...]
                self.state = .replaying(current)
                self.continueReplay()
            case .failure(let error):
                self.dependencies.logger.error("event replay failed", metadata: ["error": "\(error)"])
                self.end()
            }
        }
    }

    /// Replay is done: the frames held meanwhile go out, then every frame as it comes.
    private func goLive() {
        state = .live
        for frame in held { write(frame) }
        dependencies.metrics.eventsDelivered.increment(by: Int64(held.count))
        held = []
        heldBytes = 0
        flushIfNeeded()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, case .replaying = state { continueReplay() }
        context.fireChannelWritabilityChanged()
    }

    // MARK: Delivery (on the event loop, from the hub)

    /// Queues one frame for the socket; `flushIfNeeded` sends what was queued.
    func deliver(_ frame: ByteBuffer) {
        switch state {
        case .live:
            guard let context else { return }
            if !context.channel.isWritable {
                // Frames queued in this turn of the loop count too: send them, then judge.
                flushIfNeeded()
                guard context.channel.isWritable else {
                dependencies.metrics.eventsDropped.increment()
                return cutOffSlowReader()
            }
            }
            dependencies.metrics.eventsDelivered.increment()
            write(frame)
        case .subscribing, .replaying:
            held.append(frame)
            heldBytes += frame.readableBytes
            if heldBytes > dependencies.settings.bufferBytes {
                dependencies.metrics.eventsDropped.increment(by: Int64(held.count))
                cutOffSlowReader()
            }
        case .passing, .waiting, .ended:
            break
        }
    }

    func flushIfNeeded() {
        guard needsFlush, let context else { return }
        needsFlush = false
        context.flush()
    }

    private func write(_ frame: ByteBuffer) {
        context?.write(NIOAny(frame), promise: nil)
        needsFlush = true
    }

    private func cutOffSlowReader() {
        dependencies.logger.notice("disconnecting a slow event stream")
        dependencies.metrics.slowStreams.increment()
        end()
    }

    /// Ends the response and closes the connection (revoked session, slow reader, shutdown).
    func end() {
        switch state {
        case .ended, .passing, .waiting:
            return
        case .subscribing, .replaying, .live:
            state = .ended
            held = []
            // The body is close-delimited: closing ends it.
            flushIfNeeded()
            context?.close(promise: nil)
            release()
        }
    }

    // MARK: Closing

    func channelInactive(context: ChannelHandlerContext) {
        switch state {
        case .subscribing, .replaying, .live:
            state = .ended
            held = []
            release()
        default:
            break
        }
        context.fireChannelInactive()
    }

    /// Tells the hub the stream is gone (once its subscription id is known).
    private func release() {
        guard let id = subscriptionId else { return }
        subscriptionId = nil
        let hub = dependencies.hub
        Task { await hub.release(id) }
    }
}

/// The hub's reference to an open stream: which event loop it lives on, the handler, touched
/// only on that loop, and that loop's flusher.
struct EventStreamHandle: Sendable, FlushableStream {
    let eventLoop: any EventLoop
    private let handler: NIOLoopBound<EventStreamHandler>
    /// Sends the frames of this loop's streams to their sockets.
    let flusher: NIOLoopBound<StreamFlusher<EventStreamHandle>>

    init(handler: EventStreamHandler, eventLoop: any EventLoop, flusher: NIOLoopBound<StreamFlusher<EventStreamHandle>>) {
        self.eventLoop = eventLoop
        self.handler = NIOLoopBound(handler, eventLoop: eventLoop)
        self.flusher = flusher
    }

    /// Hands each frame to its streams, all on the flusher's loop, in one task on that loop;
    /// the flusher then sends them.
    static func deliver(_ entries: [DeliveryPlan.Entry], flushedBy flusher: NIOLoopBound<StreamFlusher<EventStreamHandle>>) {
        flusher.eventLoop.execute {
            for entry in entries {
                for stream in entry.streams { stream.handler.value.deliver(entry.frame) }
            }
            flusher.value.flush(entries.lazy.flatMap(\.streams))
        }
    }

    /// Sends what was queued for the stream (on its loop).
    func flushIfNeeded() {
        handler.value.flushIfNeeded()
    }

    /// Ends the stream.
    func end() {
        let handler = self.handler
        eventLoop.execute { handler.value.end() }
    }
}

/// Frames for streams, gathered by event loop, then handed to each loop in one task: what the
/// hub sends for one commit.
struct DeliveryPlan {
    /// One frame and the streams (all on one loop) that get it.
    struct Entry: Sendable {
        let frame: ByteBuffer
        let streams: [EventStreamHandle]
    }

    private typealias Flusher = NIOLoopBound<StreamFlusher<EventStreamHandle>>
    private var byLoop: [ObjectIdentifier: (flusher: Flusher, entries: [Entry])] = [:]

    /// Plans `frame` for `streams`, after what is already planned for them.
    mutating func add(_ frame: ByteBuffer, to streams: [EventStreamHandle]) {
        var grouped: [ObjectIdentifier: (flusher: Flusher, streams: [EventStreamHandle])] = [:]
        for stream in streams {
            grouped[ObjectIdentifier(stream.eventLoop), default: (stream.flusher, [])].streams.append(stream)
        }
        for (key, group) in grouped {
            byLoop[key, default: (group.flusher, [])].entries.append(Entry(frame: frame, streams: group.streams))
        }
    }

    /// Hands what is planned to the event loops, and starts an empty plan.
    mutating func send() {
        for (_, batch) in byLoop { EventStreamHandle.deliver(batch.entries, flushedBy: batch.flusher) }
        byLoop = [:]
    }
}

/// The stream's entry to the socket, placed in front of the HTTP/1 encoder: what is written
/// from its context goes out as it is.
private final class WireBytes: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
}
