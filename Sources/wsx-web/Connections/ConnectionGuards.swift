import NIOCore

/// The front of every connection's pipeline, before the HTTP decoder: admits the connection (or
/// answers 503 when its address holds too many), and tells its `ConnectionWatch` when bytes
/// arrive and when the app asks for more, which only this place sees (the decoder shows a
/// request head only once it is whole).
final class RawBytesGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let watch: ConnectionWatch
    private let addresses: AddressCounts?
    /// The address this connection was counted under (released when it closes).
    private var countedAddress: String?
    private var isRefused = false

    init(watch: ConnectionWatch, addresses: AddressCounts?) {
        self.watch = watch
        self.addresses = addresses
    }

    func handlerAdded(context: ChannelHandlerContext) {
        watch.raw = context
    }

    /// The watch holds this handler's context, which holds this handler, which holds the watch:
    /// the cycle is broken here, or every connection would outlive its close.
    func handlerRemoved(context: ChannelHandlerContext) {
        watch.raw = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        if let addresses, let address = context.channel.remoteAddress?.ipAddress.map(AddressBucket.key) {
            if addresses.admit(address) {
                countedAddress = address
            } else {
                refuse(context)
            }
        }
        if !isRefused { watch.connected() }
        context.fireChannelActive()
    }

    /// Over its address's cap: a 503 the client can read, then the connection closes. The write
    /// side is shut first and the rest waits for the client's end (or a quarter second, while
    /// what it sends is read and dropped), because closing with its request unread would reset
    /// the connection and lose the answer.
    private func refuse(_ context: ChannelHandlerContext) {
        isRefused = true
        let body = "Too many connections from your address. Try again shortly.\n"
        let response = "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: 10\r\n"
            + "Content-Type: text/plain; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: response)), promise: nil)
        context.close(mode: .output, promise: nil)
        context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(250)) { context.close(promise: nil) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // A refused connection's request is read and dropped (it never reaches the router).
        guard !isRefused else { return }
        watch.bytesArrived()
        context.fireChannelRead(data)
    }

    func read(context: ChannelHandlerContext) {
        if !isRefused {
            guard watch.mayRead() else { return }
            watch.readRequested()
        }
        context.read()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        watch.writabilityChanged(context.channel.isWritable)
        context.fireChannelWritabilityChanged()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if isRefused, case ChannelEvent.inputClosed = event {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        watch.closed()
        if let address = countedAddress {
            addresses?.release(address)
            countedAddress = nil
        }
        context.fireChannelInactive()
    }
}
