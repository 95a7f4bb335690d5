import NIOCore

/// How long, how slowly and how many: the bounds every connection lives within (flags
/// `--request-head-timeout`, `--idle-timeout`, `--min-body-rate`, `--max-connections`,
/// `--max-connections-per-address`).
///
/// Without them one client took the whole server down: two processes opened 10,000 sockets
/// each, sent half a request head and waited, until no descriptor was left and `/healthz`
/// stopped answering.
struct ConnectionLimits: Sendable {
    /// The whole request head (request line and headers), from its first byte (or from the
    /// connection opening), however slowly it trickles in.
    var requestHeadTimeout: TimeAmount = .seconds(10)
    /// Between requests on a kept-alive connection with no response in flight. A live event
    /// stream is a response in flight, so it never idles out.
    var idleTimeout: TimeAmount = .seconds(75)
    /// A request body arriving slower than this, averaged over `bodyRateWindow` of waiting for
    /// it, is cut off: a phone on a weak network sends several KB/s; a slow-loris a byte now and then.
    var minimumBodyBytesPerSecond = 1024
    var bodyRateWindow: TimeAmount = .seconds(30)
    /// How often a body's rate is looked at.
    var bodyCheckInterval: TimeAmount = .seconds(5)
    /// How long a connection's queued output may make no progress (the client reads nothing)
    /// before it is closed. A client that pipelined 150 requests and never read held its
    /// connection, and the answers queued for it, forever: 18,000 such connections pinned the
    /// server's descriptors and 7 GB of memory.
    var writeTimeout: TimeAmount = .seconds(30)
    /// Bytes of one request body, whatever its framing (length, chunked, bytes after a
    /// multipart closing boundary): routes refuse less with a 413; past this the connection
    /// closes. Set from the upload limits when the server is built.
    var maximumBodyBytes = 64 << 20
    /// Open connections (nil: the open-file limit less `reserve(forLimit:)`). At the cap the
    /// server stops accepting until one closes; the rest wait in the listen backlog.
    var maxConnections: Int?
    /// Connections from one address at once (nil: a quarter of `maxConnections`, at least 256,
    /// so one office behind NAT fits). Over it, a new connection gets a 503 and is closed. Not
    /// applied behind a trusted proxy, where every connection comes from the proxy.
    var maxConnectionsPerAddress: Int?

    /// Descriptors kept back from connections for the database, uploads and thumbnails in
    /// progress, and the runtime (event loops, pipes): a tenth of the limit, at least 128.
    static func reserve(forLimit limit: Int) -> Int {
        max(128, limit / 10)
    }

    /// The connection cap for an open-file limit.
    func connections(forDescriptorLimit limit: Int) -> Int {
        maxConnections ?? max(16, limit - Self.reserve(forLimit: limit))
    }

    /// The per-address cap for a connection cap.
    func connectionsPerAddress(cap: Int) -> Int {
        maxConnectionsPerAddress ?? max(256, cap / 4)
    }
}
