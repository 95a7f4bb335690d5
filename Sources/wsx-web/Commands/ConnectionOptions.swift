import ArgumentParser
import NIOCore

/// `serve`'s options for connections: time, rate and count limits (`ConnectionLimits`) and the
/// event streams one account may hold.
struct ConnectionOptions: ParsableArguments {
    @Option(name: .customLong("request-head-timeout"), help: "Time a whole request head may take, however slowly it arrives, e.g. 10s (env WSX_REQUEST_HEAD_TIMEOUT, default 10s).")
    var requestHeadTimeout: String?
    @Option(name: .customLong("idle-timeout"), help: "Time a kept-alive connection may wait between requests; event streams never idle out (env WSX_IDLE_TIMEOUT, default 75s).")
    var idleTimeout: String?
    @Option(name: .customLong("write-timeout"), help: "Time a connection's answers may wait for a client that reads nothing before it is closed, e.g. 30s (env WSX_WRITE_TIMEOUT, default 30s).")
    var writeTimeout: String?
    @Option(name: .customLong("min-body-rate"), help: "Slowest request body, averaged over 30 s of waiting for it, e.g. 1KB (env WSX_MIN_BODY_RATE, default 1KB per second).")
    var minimumBodyRate: String?
    @Option(name: .customLong("max-connections"), help: "Open connections at once; at the cap new ones wait (env WSX_MAX_CONNECTIONS, default: the open-file limit less a tenth, at least 128, kept for the database and files).")
    var maxConnections: Int?
    @Option(name: .customLong("max-connections-per-address"), help: "Open connections from one client address; more get a 503. Not applied with --trust-proxy (env WSX_MAX_CONNECTIONS_PER_ADDRESS, default: a quarter of --max-connections, at least 256).")
    var maxConnectionsPerAddress: Int?
    @Option(name: .customLong("max-event-streams-per-account"), help: "Open event streams of one account; a new one past it closes the oldest (env WSX_MAX_EVENT_STREAMS_PER_ACCOUNT, default 20).")
    var maxEventStreamsPerAccount: Int?

    func apply(to config: inout AppConfig, environment env: EnvironmentDefaults) throws {
        var limits = config.connections
        if let time = try Self.duration(requestHeadTimeout, env, "WSX_REQUEST_HEAD_TIMEOUT", flag: "--request-head-timeout") {
            limits.requestHeadTimeout = time
        }
        if let time = try Self.duration(idleTimeout, env, "WSX_IDLE_TIMEOUT", flag: "--idle-timeout") {
            limits.idleTimeout = time
        }
        if let time = try Self.duration(writeTimeout, env, "WSX_WRITE_TIMEOUT", flag: "--write-timeout") {
            limits.writeTimeout = time
        }
        if let text = minimumBodyRate ?? env.string("WSX_MIN_BODY_RATE") {
            guard let bytes = ByteSizeText.bytes(text), bytes >= 0 else {
                throw ValidationError("--min-body-rate: \(text) is not a size per second like 1KB or 512")
            }
            limits.minimumBodyBytesPerSecond = bytes
        }
        limits.maxConnections = try maxConnections ?? env.int("WSX_MAX_CONNECTIONS")
        limits.maxConnectionsPerAddress = try maxConnectionsPerAddress ?? env.int("WSX_MAX_CONNECTIONS_PER_ADDRESS")
        if let cap = limits.maxConnections, cap < 1 { throw ValidationError("--max-connections must be positive") }
        if let cap = limits.maxConnectionsPerAddress, cap < 1 {
            throw ValidationError("--max-connections-per-address must be positive")
        }
        config.connections = limits
        let streams = try maxEventStreamsPerAccount ?? env.int("WSX_MAX_EVENT_STREAMS_PER_ACCOUNT")
            ?? config.realtime.maxStreamsPerAccount
        guard streams >= 1 else { throw ValidationError("--max-event-streams-per-account must be positive") }
        config.realtime.maxStreamsPerAccount = streams
    }

    /// A positive duration from a flag or its variable (`10s`, `2m`, `1.5`).
    static func duration(_ flag: String?, _ env: EnvironmentDefaults, _ variable: String, flag name: String) throws -> TimeAmount? {
        guard let text = flag ?? env.string(variable) else { return nil }
        guard let seconds = DurationText.seconds(text), seconds > 0 else {
            throw ValidationError("\(name): \(text) is not a duration like 10s, 2m or 1.5")
        }
        return .nanoseconds(Int64(seconds * 1e9))
    }
}
