import Logging

/// Hummingbird's WebSocket-capable connection logs, as an error, a connection that closed
/// before it sent a whole first request ("Error handling upgrade result": the upgrade was never
/// decided): a port scanner, a client that gave up, a connection the guards cut. No fault of the
/// server's, so it is passed on at debug; everything else goes through as it is.
struct QuietClosedUpgrades: LogHandler {
    var wrapped: any LogHandler

    static let message: Logger.Message = "Error handling upgrade result"

    func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String,
             file: String, function: String, line: UInt) {
        let quiet = level == .error && message == Self.message
        guard !quiet || wrapped.logLevel <= .debug else { return }
        wrapped.log(level: quiet ? .debug : level, message: message, metadata: metadata, source: source,
                    file: file, function: function, line: line)
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { wrapped[metadataKey: key] }
        set { wrapped[metadataKey: key] = newValue }
    }

    var metadata: Logger.Metadata {
        get { wrapped.metadata }
        set { wrapped.metadata = newValue }
    }

    var logLevel: Logger.Level {
        get { wrapped.logLevel }
        set { wrapped.logLevel = newValue }
    }
}
