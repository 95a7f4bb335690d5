import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// A bare TCP connection for tests that misbehave on purpose: half a request head, a body that
/// trickles, a connection that just sits there. It records what the server sends and whether
/// the server closed it. `from` picks the client's address (any of 127.0.0.0/8), so tests can
/// be several clients at once.
final class RawClient: Sendable {
    let channel: any Channel
    private let recorder: Recorder

    private init(channel: any Channel, recorder: Recorder) {
        self.channel = channel
        self.recorder = recorder
    }

    static func connect(port: Int, from source: String? = nil) async throws -> RawClient {
        let recorder = Recorder()
        var bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(recorder) }
            }
        if let source { bootstrap = bootstrap.bind(to: try SocketAddress(ipAddress: source, port: 0)) }
        let channel = try await bootstrap.connect(host: "127.0.0.1", port: port).get()
        return RawClient(channel: channel, recorder: recorder)
    }

    /// A connection that asked for `/healthz` (from `source`); check `waitFor("ok\n", …)`.
    static func askingHealth(port: Int, from source: String? = nil) async throws -> RawClient {
        let client = try await connect(port: port, from: source)
        try await client.send("GET /healthz HTTP/1.1\r\nHost: wsx\r\n\r\n")
        return client
    }

    /// A `GET /events` stream with these cookies, once the server started it (nil if it did not within two seconds).
    static func eventStream(port: Int, cookie: String) async throws -> RawClient? {
        let stream = try await connect(port: port)
        try await stream.send("GET /events HTTP/1.1\r\nHost: wsx\r\nCookie: \(cookie)\r\n\r\n")
        return await stream.waitFor("retry:", within: .seconds(2)) ? stream : nil
    }

    func send(_ text: String) async throws {
        try await channel.writeAndFlush(ByteBuffer(string: text)).get()
    }

    /// Sends `text` a few bytes at a time, `pause` apart, after `head` (written with the first
    /// piece, so no pause falls between them). The pieces are timed by the connection's event
    /// loop, not by the calling task: with the whole suite on two cores, the cooperative pool
    /// once left a test's task unscheduled for over a second between two pieces, and the
    /// server rightly read that as a stalled client. Returns when the last piece is written;
    /// throws when the server closed the connection first.
    func trickle(_ text: String, bytes: Int = 1, pause: Duration, after head: String = "") async throws {
        var texts: [String] = []
        var rest = Substring(text)
        while !rest.isEmpty {
            let piece = String(decoding: rest.utf8.prefix(bytes), as: UTF8.self)
            texts.append(piece)
            rest = rest.dropFirst(piece.count)
        }
        texts = [head + (texts.first ?? "")] + texts.dropFirst()
        let pieces = texts.map { ByteBuffer(string: $0) }
        let (seconds, attoseconds) = pause.components
        let gap = TimeAmount.nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        let channel = self.channel
        let sent = channel.eventLoop.makePromise(of: Void.self)
        @Sendable func write(_ index: Int) {
            channel.writeAndFlush(pieces[index]).whenComplete { result in
                switch result {
                case .failure(let error): sent.fail(error)
                case .success where index == pieces.count - 1: sent.succeed()
                case .success: channel.eventLoop.scheduleTask(in: gap) { write(index + 1) }
                }
            }
        }
        channel.eventLoop.execute { write(0) }
        try await sent.futureResult.get()
    }

    /// What the server has sent so far, as text.
    var received: String { recorder.text }

    /// Whether the server closed the connection within `timeout`.
    func closed(within timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if !channel.isActive { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return !channel.isActive
    }

    /// Waits until the server has sent something containing `text`, up to `timeout`.
    func waitFor(_ text: String, within timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if received.contains(text) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return received.contains(text)
    }

    func close() async {
        try? await channel.close()
    }

    private final class Recorder: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        private let bytes = Mutex<[UInt8]>([])

        var text: String { bytes.withLock { String(decoding: $0, as: UTF8.self) } }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            bytes.withLock { $0 += buffer.readableBytesView }
        }
    }
}
