import Foundation
import Logging
import Synchronization

/// Collects the log lines of a test app so tests can assert what operators would read.
final class CapturedLogs: Sendable {
    private let lines = Mutex<[String]>([])
    /// The lowest level kept (the app's `--log-level`).
    let level: Logger.Level

    init(level: Logger.Level = .info) {
        self.level = level
    }

    func logger() -> Logger {
        var logger = Logger(label: "wsx-test") { _ in CapturingHandler(sink: self, logLevel: self.level) }
        logger.logLevel = level
        return logger
    }

    var all: [String] { lines.withLock { $0 } }

    fileprivate func append(_ line: String) { lines.withLock { $0.append(line) } }
}

private struct CapturingHandler: LogHandler {
    let sink: CapturedLogs

    init(sink: CapturedLogs, logLevel: Logger.Level) {
        self.sink = sink
        self.logLevel = logLevel
    }
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var all = metadata
        if let extra = event.metadata { all.merge(extra) { $1 } }
        let rendered = all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        sink.append("\(event.level) \(event.message) \(rendered)")
    }
}
