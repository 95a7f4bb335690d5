import Foundation
import NIOCore

/// A streaming `multipart/form-data` parser (RFC 7578): fed the request body chunk by chunk,
/// it returns what each chunk completed: a part's headers, slices of its body, its end.
///
/// It searches for the boundary over whole buffers (memmem) and hands body bytes on in as few
/// slices as the chunking allows, keeping back only the bytes that might start a boundary.
/// It is a state machine whose `feed` returns events for the caller to act on; it allocates
/// nothing per byte and never holds more than one chunk plus a boundary's length.
public struct MultipartParser: Sendable {
    /// What a chunk of input completed.
    public enum Event: Equatable, Sendable {
        /// A new part begins, with its headers (names lowercased).
        case headers([(name: String, value: String)])
        /// Bytes of the current part's body.
        case body(ByteBuffer)
        /// The current part is complete.
        case partEnd
        /// The closing boundary was read; anything after it is ignored.
        case end

        public static func == (lhs: Event, rhs: Event) -> Bool {
            switch (lhs, rhs) {
            case (.headers(let a), .headers(let b)): a.map { "\($0.name):\($0.value)" } == b.map { "\($0.name):\($0.value)" }
            case (.body(let a), .body(let b)): a == b
            case (.partEnd, .partEnd), (.end, .end): true
            default: false
            }
        }
    }

    /// Why the input is not a valid multipart body.
    public enum ParseError: Error, Equatable, Sendable {
        case missingBoundary
        case headersTooLarge
        case malformedHeader
        case tooManyParts
        case unexpectedEnd
    }

    private enum State: Sendable {
        /// Before the first boundary (the preamble is ignored).
        case preamble
        /// After a boundary: either `--` (the end) or CRLF and a part's headers.
        case afterBoundary
        case headers
        case body
        case done
    }

    public static let maximumHeaderBytes = 16 * 1024
    public let maximumParts: Int

    private let firstDelimiter: [UInt8]
    /// `\r\n--boundary`: what ends a part's body.
    private let delimiter: [UInt8]
    private var state = State.preamble
    private var pending = ByteBuffer()
    private var parts = 0

    /// A parser for `boundary` (from the `Content-Type` header's `boundary=` parameter).
    public init(boundary: String, maximumParts: Int = 64) {
        firstDelimiter = Array("--\(boundary)".utf8)
        delimiter = Array("\r\n--\(boundary)".utf8)
        self.maximumParts = maximumParts
    }

    /// The boundary of a `multipart/form-data` content type, or nil.
    public static func boundary(fromContentType contentType: String) -> String? {
        let parts = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.first?.lowercased() == "multipart/form-data" else { return nil }
        for parameter in parts.dropFirst() where parameter.lowercased().hasPrefix("boundary=") {
            var value = String(parameter.dropFirst("boundary=".count))
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            return (1...70).contains(value.utf8.count) ? value : nil
        }
        return nil
    }

    /// Whether the closing boundary has been read.
    public var isComplete: Bool {
        if case .done = state { return true }
        return false
    }

    /// Consumes `chunk` and returns the events it completed, in order.
    public mutating func feed(_ chunk: ByteBuffer) throws -> [Event] {
        var chunk = chunk
        pending.writeBuffer(&chunk)
        var events: [Event] = []
        while true {
            switch state {
            case .preamble:
                guard let index = Self.search(firstDelimiter, in: pending) else {
                    // Keep only what might be the start of the first boundary.
                    Self.dropAllBut(firstDelimiter.count - 1, from: &pending)
                    return events
                }
                pending.moveReaderIndex(forwardBy: index + firstDelimiter.count)
                state = .afterBoundary
            case .afterBoundary:
                guard pending.readableBytes >= 2 else { return events }
                let next = pending.getBytes(at: pending.readerIndex, length: 2)!
                if next == [UInt8(ascii: "-"), UInt8(ascii: "-")] {
                    state = .done
                    events.append(.end)
                } else if next == [13, 10] {
                    pending.moveReaderIndex(forwardBy: 2)
                    parts += 1
                    if parts > maximumParts { throw ParseError.tooManyParts }
                    state = .headers
                } else {
                    // Transport padding (spaces/tabs) may follow a boundary.
                    guard next[0] == UInt8(ascii: " ") || next[0] == UInt8(ascii: "\t") else { throw ParseError.missingBoundary }
                    pending.moveReaderIndex(forwardBy: 1)
                }
            case .headers:
                guard let end = Self.search([13, 10, 13, 10], in: pending) else {
                    if pending.readableBytes > Self.maximumHeaderBytes { throw ParseError.headersTooLarge }
                    return events
                }
                guard end <= Self.maximumHeaderBytes else { throw ParseError.headersTooLarge }
                let text = pending.readString(length: end) ?? ""
                pending.moveReaderIndex(forwardBy: 4)
                events.append(.headers(try Self.headers(text)))
                state = .body
            case .body:
                if let index = Self.search(delimiter, in: pending) {
                    if index > 0 { events.append(.body(pending.readSlice(length: index)!)) }
                    pending.moveReaderIndex(forwardBy: delimiter.count)
                    events.append(.partEnd)
                    state = .afterBoundary
                } else {
                    // Everything but a possible boundary start is body.
                    let safe = pending.readableBytes - (delimiter.count - 1)
                    if safe > 0 { events.append(.body(pending.readSlice(length: safe)!)) }
                    pending.discardReadBytes()
                    return events
                }
            case .done:
                pending.clear()
                return events
            }
        }
    }

    /// Confirms the body ended with its closing boundary.
    public func finish() throws {
        guard isComplete else { throw ParseError.unexpectedEnd }
    }

    static func headers(_ text: String) throws -> [(name: String, value: String)] {
        guard !text.isEmpty else { return [] }
        return try text.components(separatedBy: "\r\n").map { line in
            guard let colon = line.firstIndex(of: ":") else { throw ParseError.malformedHeader }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            guard !name.isEmpty else { throw ParseError.malformedHeader }
            return (name, line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
    }

    /// The offset of `needle` in the readable bytes of `buffer`, or nil: `memchr` jumps to each
    /// candidate first byte, `memcmp` checks the rest (both vectorised by libc).
    static func search(_ needle: [UInt8], in buffer: ByteBuffer) -> Int? {
        buffer.withUnsafeReadableBytes { haystack -> Int? in
            guard haystack.count >= needle.count, let base = haystack.baseAddress else { return nil }
            return needle.withUnsafeBytes { pattern -> Int? in
                let first = Int32(needle[0])
                let last = haystack.count - needle.count
                var offset = 0
                while offset <= last {
                    guard let hit = memchr(base + offset, first, last - offset + 1) else { return nil }
                    let position = base.distance(to: UnsafeRawPointer(hit))
                    if memcmp(base + position, pattern.baseAddress!, needle.count) == 0 { return position }
                    offset = position + 1
                }
                return nil
            }
        }
    }

    private static func dropAllBut(_ keep: Int, from buffer: inout ByteBuffer) {
        let drop = buffer.readableBytes - keep
        if drop > 0 { buffer.moveReaderIndex(forwardBy: drop) }
        buffer.discardReadBytes()
    }
}

extension MultipartParser {
    /// The `name` and `filename` parameters of a part's `Content-Disposition` header.
    public static func disposition(_ headers: [(name: String, value: String)]) -> (name: String?, filename: String?) {
        guard let value = headers.first(where: { $0.name == "content-disposition" })?.value else { return (nil, nil) }
        var name: String?, filename: String?, filenameStar: String?
        // A part that names a file is a file part, even when the name cannot be read: dropping
        // it would silently lose the file (it gets a plain name instead).
        var namesFile = false
        for parameter in splitParameters(value).dropFirst() {
            guard let equals = parameter.firstIndex(of: "=") else { continue }
            let key = parameter[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            var raw = parameter[parameter.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if raw.hasPrefix("\""), raw.hasSuffix("\""), raw.count >= 2 {
                raw = String(raw.dropFirst().dropLast()).replacingOccurrences(of: "\\\"", with: "\"")
            }
            switch key {
            case "name": name = raw
            case "filename":
                filename = raw
                namesFile = true
            case "filename*":
                // RFC 5987: charset'language'percent-encoded
                namesFile = true
                let pieces = raw.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
                if pieces.count == 3 { filenameStar = String(pieces[2]).removingPercentEncoding }
            default: break
            }
        }
        return (name, filenameStar ?? filename ?? (namesFile ? "" : nil))
    }

    /// Splits at `;` outside quotes.
    private static func splitParameters(_ value: String) -> [String] {
        var parts: [String] = [], current = "", quoted = false, escaped = false
        for character in value {
            if escaped { current.append(character); escaped = false; continue }
            if character == "\\" && quoted { current.append(character); escaped = true; continue }
            if character == "\"" { quoted.toggle() }
            if character == ";" && !quoted { parts.append(current); current = ""; continue }
            current.append(character)
        }
        parts.append(current)
        return parts
    }
}
