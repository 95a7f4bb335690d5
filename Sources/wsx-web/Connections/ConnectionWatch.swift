import Hummingbird
import HTTPTypes
import Logging
import NIOCore
import NIOHTTPTypes

/// One connection's clocks and counts, fed from both ends of the HTTP codec: `RawBytesGuard`
/// (bytes as they arrive, at the front of the pipeline) and `EventStreamHandler` (request and
/// response parts, after the codec, where it reads them anyway: one handler and its context
/// fewer per connection, which every open event stream pays for). Lives on the connection's
/// event loop and is touched only there.
///
/// - The request head must be whole within `requestHeadTimeout` of its first byte (or of the
///   connection opening); else a 408 and the connection closes.
/// - Between requests, with no response in flight, the connection may idle `idleTimeout`. An
///   event stream is a response that never ends, so it is never idle.
/// - A request body must arrive at `minimumBodyBytesPerSecond`, averaged over `bodyRateWindow`
///   of time spent waiting for it: time the app was not asking for more (it was busy with what
///   it had) does not count against the client. And no body may pass `maximumBodyBytes`.
///
/// - Output the client does not take (the socket stays unwritable) may wait `writeTimeout`;
///   then the connection closes.
/// - A request that arrives behind one whose answer is not yet flushed to the socket is not read
///   (no more bytes are asked of the socket) until it is: a client that pipelines and never
///   reads gets its answers one at a time, not a queue of them. Event streams read on (the
///   client's end of the connection must be seen).
///
/// One timer ("watchdog") serves every deadline: it fires at the earliest and, when it finds
/// the deadline moved (a request came in time), re-arms for the next. So a kept-alive
/// connection costs no timer per request.
final class ConnectionWatch {
    /// Why a connection was cut off; reaches a route still reading the body as an error.
    enum Cutoff: Error, HTTPResponseError {
        case headTooSlow, bodyTooSlow, bodyTooLarge

        var status: HTTPResponse.Status {
            switch self {
            case .headTooSlow, .bodyTooSlow: .requestTimeout
            case .bodyTooLarge: .contentTooLarge
            }
        }

        func response(from request: Request, context: some RequestContext) throws -> Response {
            Response(status: status, headers: [.connection: "close"])
        }
    }

    /// The server's limits and logger, one object shared by every connection: a watch lives as
    /// long as its connection, and ten thousand open streams each pay for what it holds.
    private let rules: ConnectionRules
    /// The front of the pipeline (raw bytes) and the place after the HTTP codec (parts).
    var raw: ChannelHandlerContext?
    var http: ChannelHandlerContext?

    /// No `.head` read since the last request ended (or since the connection opened).
    private var awaitingHead = true
    /// A request's head was read and its end not yet.
    private var readingBody = false
    /// Requests whose response has not ended.
    private var inFlight = 0
    /// A response said `Connection: close`: close once it has ended.
    private var closeAfterResponse = false
    private var isClosed = false

    private var headStartedAt: NIODeadline?
    private var idleSince: NIODeadline?
    private var bodyBytes = 0
    /// The body-rate window: bytes, and time spent waiting for them.
    private var windowBytes = 0
    private var windowWaited = TimeAmount.zero
    private var nextBodyCheck: NIODeadline?
    /// Since when the app has been asking for bytes that have not come.
    private var readRequestedAt: NIODeadline?
    /// Since when the socket has taken no output (it is unwritable).
    private var stalledSince: NIODeadline?
    /// Responses whose end has not reached the socket yet.
    private var unflushed = 0
    /// A read the pipeline asked for while an answer was unflushed, to pass on once it is.
    private var heldRead = false
    private var isStream = false

    private var watchdog: Scheduled<Void>?
    private var watchdogAt: NIODeadline?

    init(rules: ConnectionRules) {
        self.rules = rules
    }

    private var limits: ConnectionLimits { rules.limits }
    private var logger: Logger { rules.logger }

    // MARK: HTTP parts

    /// A request part arrived; false when it passes the body cap (the connection is being cut
    /// and the part goes no further).
    func read(_ part: HTTPRequestPart) -> Bool {
        switch part {
        case .head(let head):
            let length = head.headerFields[.contentLength].flatMap(Int.init) ?? 0
            headRead(hasBody: length > 0 || head.headerFields[.transferEncoding] != nil)
        case .body(let bytes):
            return bodyRead(bytes.readableBytes)
        case .end:
            requestEnded()
        }
        return true
    }

    /// The connection became an event stream: no deadline applies to it any more (a response
    /// in flight never idles out), so the watchdog is not left holding a timer per stream.
    func becameStream() {
        isStream = true
        headStartedAt = nil
        idleSince = nil
        watchdog?.cancel()
        watchdog = nil
        watchdogAt = nil
        releaseHeldRead()
    }

    /// Whether the socket should not be read now: a request's answer is still on its way out.
    var holdsReads: Bool { unflushed > 0 && !readingBody && !isStream }

    /// The pipeline asks the socket for bytes; false when the request is held (`holdsReads`).
    func mayRead() -> Bool {
        guard holdsReads else { return true }
        heldRead = true
        return false
    }

    /// A response's end reached the socket (or failed to): a held read goes on.
    func responseFlushed() {
        unflushed = max(0, unflushed - 1)
        releaseHeldRead()
    }

    private func releaseHeldRead() {
        guard heldRead, !holdsReads, !isClosed else { return }
        heldRead = false
        raw?.read()
    }

    /// The socket stopped, or started again, taking output.
    func writabilityChanged(_ writable: Bool) {
        if writable {
            stalledSince = nil
        } else if stalledSince == nil {
            let now = NIODeadline.now()
            stalledSince = now
            arm(at: now + limits.writeTimeout)
        }
    }

    /// A response part is being written; true when the connection should close once it is
    /// (the response said `Connection: close`).
    func writing(_ part: HTTPResponsePart) -> Bool {
        switch part {
        case .head(let head):
            // Interim (1xx) heads are followed by the real one.
            if head.status.kind != .informational, let connection = head.headerFields[.connection] {
                responseStarted(closing: connection.utf8.count == 5 && connection.lowercased() == "close")
            }
            return false
        case .body:
            return false
        case .end:
            return responseEnded()
        }
    }

    // MARK: Events

    func connected() {
        headStartedAt = .now()
        arm(at: .now() + limits.requestHeadTimeout)
    }

    /// Raw bytes arrived (before the decoder sees them).
    func bytesArrived() {
        let now = NIODeadline.now()
        idleSince = nil
        if readingBody, let asked = readRequestedAt { windowWaited = windowWaited + (now - asked) }
        readRequestedAt = nil
        if awaitingHead, headStartedAt == nil {
            headStartedAt = now
            arm(at: now + limits.requestHeadTimeout)
        }
    }

    /// The app asked for more bytes.
    func readRequested() {
        if readRequestedAt == nil { readRequestedAt = .now() }
    }

    func headRead(hasBody: Bool) {
        headStartedAt = nil
        awaitingHead = false
        inFlight += 1
        unflushed += 1
        readingBody = true
        bodyBytes = 0
        if hasBody {
            windowBytes = 0
            windowWaited = .zero
            let check = NIODeadline.now() + limits.bodyCheckInterval
            nextBodyCheck = check
            arm(at: check)
        }
    }

    /// Body bytes of the current request; false when they pass the cap (the connection is being cut).
    func bodyRead(_ count: Int) -> Bool {
        bodyBytes += count
        windowBytes += count
        if bodyBytes > limits.maximumBodyBytes {
            cut(.bodyTooLarge)
            return false
        }
        return true
    }

    func requestEnded() {
        readingBody = false
        nextBodyCheck = nil
        awaitingHead = true
    }

    func responseStarted(closing: Bool) {
        if closing { closeAfterResponse = true }
    }

    /// A response ended; true when the connection should now close (`Connection: close`).
    func responseEnded() -> Bool {
        inFlight = max(0, inFlight - 1)
        if closeAfterResponse { return true }
        if inFlight == 0, awaitingHead, headStartedAt == nil, !readingBody {
            let now = NIODeadline.now()
            idleSince = now
            arm(at: now + limits.idleTimeout)
        }
        return false
    }

    func closed() {
        isClosed = true
        watchdog?.cancel()
        watchdog = nil
    }

    // MARK: The watchdog

    /// Makes sure the watchdog fires no later than `deadline`.
    private func arm(at deadline: NIODeadline) {
        if let armed = watchdogAt, armed <= deadline, watchdog != nil { return }
        guard !isClosed, let eventLoop = raw?.eventLoop else { return }
        watchdog?.cancel()
        watchdogAt = deadline
        watchdog = eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            watchdog = nil
            watchdogAt = nil
            check()
        }
    }

    private func check() {
        guard !isClosed else { return }
        let now = NIODeadline.now()
        if let stalled = stalledSince, now >= stalled + limits.writeTimeout {
            logger.debug("closing a connection whose client reads nothing")
            return close()
        }
        if let started = headStartedAt, now >= started + limits.requestHeadTimeout {
            return timeOutHead()
        }
        if let since = idleSince, now >= since + limits.idleTimeout {
            logger.debug("closing an idle connection")
            return close()
        }
        if readingBody, let due = nextBodyCheck, now >= due {
            if let asked = readRequestedAt {
                windowWaited = windowWaited + (now - asked)
                readRequestedAt = now
            }
            if windowWaited >= limits.bodyRateWindow {
                let seconds = Double(windowWaited.nanoseconds) / 1e9
                if Double(windowBytes) < Double(limits.minimumBodyBytesPerSecond) * seconds {
                    return cut(.bodyTooSlow)
                }
                windowBytes = 0
                windowWaited = .zero
            }
            nextBodyCheck = now + limits.bodyCheckInterval
        }
        let next = [headStartedAt.map { $0 + limits.requestHeadTimeout }, idleSince.map { $0 + limits.idleTimeout },
                    readingBody ? nextBodyCheck : nil, stalledSince.map { $0 + limits.writeTimeout }].compactMap { $0 }.min()
        if let next { arm(at: next) }
    }

    // MARK: Ending

    /// The head did not come in time: a 408 when nothing else is being written, then close.
    private func timeOutHead() {
        logger.debug("request head too slow; closing")
        if inFlight == 0, let raw {
            raw.writeAndFlush(NIOAny(ByteBuffer(string: Self.requestTimeout)), promise: nil)
        }
        close()
    }

    static let requestTimeout = "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"

    /// Ends the connection while a request body is being read: the route reading it gets the
    /// reason as an error (a plain close would look like the body's end), then it closes.
    private func cut(_ reason: Cutoff) {
        logger.debug("cutting a connection off", metadata: ["reason": "\(reason)"])
        http?.fireErrorCaught(reason)
        close()
    }

    private func close() {
        guard !isClosed else { return }
        closed()
        raw?.close(promise: nil)
    }
}

/// What every connection's watch shares: the limits and where to log.
final class ConnectionRules: Sendable {
    let limits: ConnectionLimits
    let logger: Logger

    init(limits: ConnectionLimits, logger: Logger) {
        self.limits = limits
        self.logger = logger
    }
}
