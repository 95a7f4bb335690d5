import HummingbirdCore
import Logging
import NIOCore

/// Hummingbird's HTTP/1.1 connection with wsx's guards around it: `RawBytesGuard` in front of
/// the HTTP decoder, then Hummingbird's codec, then `EventStreamHandler`, both feeding one
/// `ConnectionWatch`. Everything else (the request loop, graceful shutdown) is Hummingbird's
/// `HTTP1Channel`.
struct GuardedHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let http1: HTTP1Channel
    let rules: ConnectionRules
    /// Per-address counts; nil behind a trusted proxy (every connection is the proxy's).
    let addresses: AddressCounts?
    let streams: EventStreamHandler.Dependencies
    let logger: Logger

    init(responder: @escaping HTTPChannelHandler.Responder, limits: ConnectionLimits, addresses: AddressCounts?,
         streams: EventStreamHandler.Dependencies, logger: Logger) {
        rules = ConnectionRules(limits: limits, logger: logger)
        self.addresses = addresses
        self.streams = streams
        self.logger = logger
        http1 = HTTP1Channel(responder: responder)
    }

    /// Runs on the new connection's event loop, before it is registered.
    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let watch = ConnectionWatch(rules: rules)
        let bound = NIOLoopBound(watch, eventLoop: channel.eventLoop)
        do {
            try channel.pipeline.syncOperations.addHandler(RawBytesGuard(watch: watch, addresses: addresses))
        } catch {
            // A connection whose setup fails is never registered: close it here or its
            // descriptor leaks.
            channel.close(promise: nil)
            return channel.eventLoop.makeFailedFuture(error)
        }
        let streams = self.streams
        let configuration = HTTP1Channel.Configuration(
            additionalChannelHandlers: [EventStreamHandler(streams, watch: bound.value)])
        return HTTP1Channel(responder: http1.responder, configuration: configuration).setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
    }
}
