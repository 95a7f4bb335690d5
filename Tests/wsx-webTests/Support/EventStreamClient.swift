import Foundation
import NIOCore
import NIOPosix

/// One Server-Sent Event as a browser's EventSource would parse it, or a comment line.
struct ReceivedEvent: Equatable, Sendable {
    var id: String?
    var type: String
    var data: String
    var isComment: Bool { type == ":" }
}

/// An HTTP/1.1 client for `GET /events` over a real socket, reading the stream incrementally
/// (de-chunking and parsing SSE) so tests can stop reading, drop the connection or resume.
struct EventStreamClient {
    /// What the server answered before the stream's events.
    struct Head: Sendable {
        var status: Int
        var headers: [String: String]
    }

    /// Opens `GET path` with `headers`, runs `body` with a reader, then closes the connection.
    /// `precededBy` paths are requested first, in the same write (HTTP/1.1 pipelining).
    static func connect<T: Sendable>(port: Int, path: String = "/events", headers: [String: String],
                                     precededBy: [String] = [],
                                     _ body: (inout Reader) async throws -> T) async throws -> T {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            let requests = (precededBy + [path]).map { Self.request($0, headers: headers) }
            try await outbound.write(ByteBuffer(string: requests.joined()))
            var reader = Reader(iterator: inbound.makeAsyncIterator(), outbound: outbound)
            return try await body(&reader)
        }
    }

    static func request(_ path: String, headers: [String: String]) -> String {
        var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        return request + "\r\n"
    }

    /// Reads the response: head first, then events one by one.
    struct Reader {
        var iterator: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
        let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
        private var raw: [UInt8] = []
        private var body: [UInt8] = []
        private var head: Head?
        private var isChunked = false
        private var bodyEnded = false
        private var connectionEnded = false

        init(iterator: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator,
             outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) {
            self.iterator = iterator
            self.outbound = outbound
        }

        /// Sends another request on this connection (keep-alive), after the previous response.
        mutating func send(_ path: String, headers: [String: String]) async throws {
            try await outbound.write(ByteBuffer(string: EventStreamClient.request(path, headers: headers)))
        }

        /// A whole response with a `Content-Length` body (an ordinary page before the stream);
        /// afterwards the reader reads the next response on the connection.
        mutating func readWholeResponse() async throws -> (status: Int, body: String) {
            let head = try await readHead()
            let length = Int(head.headers["content-length"] ?? "") ?? 0
            while raw.count < length {
                if try await !fill() { throw StreamError.endedEarly(received: raw.count) }
            }
            let text = String(decoding: raw[..<length], as: UTF8.self)
            raw.removeFirst(length)
            self.head = nil
            isChunked = false
            return (head.status, text)
        }

        /// The status line and headers.
        mutating func readHead() async throws -> Head {
            while head == nil {
                if let end = Self.find([13, 10, 13, 10], in: raw) {
                    let text = String(decoding: raw[..<end], as: UTF8.self)
                    raw.removeFirst(end + 4)
                    var lines = text.components(separatedBy: "\r\n")
                    let status = Int(lines.removeFirst().split(separator: " ")[1]) ?? 0
                    var headers: [String: String] = [:]
                    for line in lines {
                        guard let colon = line.firstIndex(of: ":") else { continue }
                        headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                    }
                    head = Head(status: status, headers: headers)
                    isChunked = headers["transfer-encoding"]?.lowercased() == "chunked"
                } else if try await !fill() {
                    throw StreamError.closedBeforeHead
                }
            }
            return head!
        }

        /// The next event or comment; nil when the server ended the stream.
        mutating func next(includingComments: Bool = false) async throws -> ReceivedEvent? {
            _ = try await readHead()
            while true {
                if let end = Self.find([10, 10], in: body) {
                    let block = String(decoding: body[..<end], as: UTF8.self)
                    body.removeFirst(end + 2)
                    guard let event = Self.parse(block) else { continue }
                    if event.isComment && !includingComments { continue }
                    return event
                }
                if bodyEnded { return nil }
                try await pumpBody()
            }
        }

        /// Events until `count` are read (comments skipped); fails on end of stream.
        mutating func next(_ count: Int) async throws -> [ReceivedEvent] {
            var events: [ReceivedEvent] = []
            while events.count < count {
                guard let event = try await next() else { throw StreamError.endedEarly(received: events.count) }
                events.append(event)
            }
            return events
        }

        /// Moves de-chunked body bytes from `raw` to `body`, reading from the socket when needed.
        private mutating func pumpBody() async throws {
            if !isChunked {
                if !raw.isEmpty { body += raw; raw.removeAll(); return }
                if try await !fill() { bodyEnded = true; return }
                body += raw; raw.removeAll()
                return
            }
            while true {
                if let lineEnd = Self.find([13, 10], in: raw) {
                    let sizeText = String(decoding: raw[..<lineEnd], as: UTF8.self).split(separator: ";")[0]
                    guard let size = Int(sizeText, radix: 16) else { throw StreamError.badChunk(String(sizeText)) }
                    if size == 0 { bodyEnded = true; return }
                    if raw.count >= lineEnd + 2 + size + 2 {
                        body += raw[(lineEnd + 2)..<(lineEnd + 2 + size)]
                        raw.removeFirst(lineEnd + 2 + size + 2)
                        return
                    }
                }
                if try await !fill() { bodyEnded = true; return }
            }
        }

        /// Reads more bytes from the socket; false at end of connection.
        private mutating func fill() async throws -> Bool {
            if connectionEnded { return false }
            guard var buffer = try await iterator.next() else { connectionEnded = true; return false }
            raw += buffer.readBytes(length: buffer.readableBytes) ?? []
            return true
        }

        static func parse(_ block: String) -> ReceivedEvent? {
            var id: String?, type = "message", data: [String] = [], comment = false
            for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix(":") { comment = true; continue }
                let parts = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
                let field = String(parts[0])
                var value = parts.count > 1 ? String(parts[1]) : ""
                if value.hasPrefix(" ") { value.removeFirst() }
                switch field {
                case "id": id = value
                case "event": type = value
                case "data": data.append(value)
                default: break
                }
            }
            if comment && id == nil && data.isEmpty { return ReceivedEvent(id: nil, type: ":", data: "") }
            if data.isEmpty && id == nil { return nil }
            return ReceivedEvent(id: id, type: type, data: data.joined(separator: "\n"))
        }

        static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
            guard haystack.count >= needle.count else { return nil }
            for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
                if Array(haystack[start..<(start + needle.count)]) == needle { return start }
            }
            return nil
        }
    }

    enum StreamError: Error {
        case closedBeforeHead
        case endedEarly(received: Int)
        case badChunk(String)
    }
}

extension TestBrowser {
    /// The Cookie header this browser would send.
    var cookieHeader: String {
        cookies.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "; ")
    }
}

/// Waits (briefly polling) until `condition` holds; for asserting server-side effects in tests.
func eventually(timeout: Duration = .seconds(5), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}
