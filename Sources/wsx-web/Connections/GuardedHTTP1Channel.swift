import HTTPTypes
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore

/// Hummingbird's HTTP/1.1 connection with wsx's guards around it: `RawBytesGuard` in front of
/// the HTTP decoder, then Hummingbird's codec, then `EventStreamHandler`, both feeding one
/// `ConnectionWatch`. Everything else (the request loop, graceful shutdown) is Hummingbird's,
/// through `HTTP1WebSocketUpgradeChannel`, which also lets the apps' Socket.IO sessions upgrade
/// to a WebSocket (`SocketIOWebSocket`) while the API is on; any other upgrade is refused.
struct GuardedHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1WebSocketUpgradeChannel.Value

    /// The connection as Hummingbird runs it, without wsx's per-connection handlers: what
    /// `handle` needs (the responder).
    let upgradable: HTTP1WebSocketUpgradeChannel
    let responder: HTTPChannelHandler.Responder
    let rules: ConnectionRules
    /// Per-address counts; nil behind a trusted proxy (every connection is the proxy's).
    let addresses: AddressCounts?
    let streams: EventStreamHandler.Dependencies
    /// The apps' Socket.IO, when the API is on.
    let socketIO: SocketIOController?
    let logger: Logger

    init(responder: @escaping HTTPChannelHandler.Responder, limits: ConnectionLimits, addresses: AddressCounts?,
         streams: EventStreamHandler.Dependencies, socketIO: SocketIOController?, logger: Logger) {
        rules = ConnectionRules(limits: limits, logger: logger)
        self.responder = responder
        self.addresses = addresses
        self.streams = streams
        self.socketIO = socketIO
        self.logger = logger
        upgradable = HTTP1WebSocketUpgradeChannel(responder: responder, configuration: .init()) { _, _, _ in .dontUpgrade }
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
        let streams = self.streams, socketIO = self.socketIO
        let configuration = HTTP1WebSocketUpgradeChannel.Configuration(
            http1: .init(additionalChannelHandlers: [EventStreamHandler(streams, watch: bound.value)]),
            ws: socketIO?.webSocketConfiguration ?? .init())
        let connection = HTTP1WebSocketUpgradeChannel(responder: responder, configuration: configuration) { head, _, _ in
            guard let handler = socketIO?.webSocketHandler(for: head) else { return .dontUpgrade }
            // Runs on the connection's loop. A WebSocket is a response that never ends: no
            // request deadline applies to it any more (the write timeout still does).
            bound.value.becameStream()
            return .upgrade([:], handler)
        }
        return connection.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        var logger = logger
        logger.handler = QuietClosedUpgrades(wrapped: logger.handler)
        await upgradable.handle(value: value, logger: logger)
    }
}
