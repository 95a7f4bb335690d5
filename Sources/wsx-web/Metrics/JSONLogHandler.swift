import Foundation
import Logging

/// Log lines as JSON objects, one per line on standard output (`--log-format json`), for log
/// shippers: time, level, message, where it came from, and the line's metadata, a request's
/// id (`request_id`) among it when the line was logged while answering one.
struct JSONLogHandler: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info
    let label: String
    private let output: @Sendable (String) -> Void

    init(label: String, output: @escaping @Sendable (String) -> Void = JSONLogHandler.standardOutput) {
        self.label = label
        self.output = output
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        guard let line = Self.line(level: event.level, message: event.message.description, label: label, source: event.source,
                                   metadata: metadata.merging(event.metadata ?? [:]) { $1 }) else { return }
        output(line)
    }

    /// One line's JSON object: time, level, message, logger, source and the metadata.
    static func line(level: Logger.Level, message: String, label: String, source: String, metadata: Logger.Metadata) -> String? {
        var fields: [String: Any] = [
            "time": timestamp(Date()), "level": level.rawValue, "message": message, "logger": label, "source": source,
        ]
        for (key, value) in metadata {
            // Hummingbird names a request's id `hb.request.id`; shippers expect a plain name.
            fields[key == "hb.request.id" ? "request_id" : key] = json(value)
        }
        guard let data = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys, .withoutEscapingSlashes]) else {
            return nil
        }
        return String(data: data, encoding: .utf8)
    }

    /// Writes one line to standard output in one system call, so lines of different threads
    /// never mix.
    @Sendable static func standardOutput(_ line: String) {
        var bytes = Array(line.utf8)
        bytes.append(UInt8(ascii: "\n"))
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(STDOUT_FILENO, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }

    private static func json(_ value: Logger.MetadataValue) -> Any {
        switch value {
        case .string(let text): text
        case .stringConvertible(let value): value.description
        case .array(let values): values.map(json)
        case .dictionary(let values): values.mapValues(json)
        }
    }

    private static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
