#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NIOCore

/// Server-Sent Events wire format (HTML Living Standard §9.2).
enum SSEFrame {
    /// `id:`, `event:` and one `data:` line per line of `data`, ended by a blank line. Lines
    /// end where the standard ends them (CR LF, LF or a lone CR), found in the UTF-8 bytes with
    /// `memchr`: the hub frames every event of every commit (splitting a payload of a few KB by
    /// Characters cost 40 µs a post), and a replay frames a whole page of events at once.
    static func event(id: Int64?, type: String, data: String) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(data.utf8.count + type.utf8.count + 40)
        if let id { buffer.writeString("id: \(id)\n") }
        buffer.writeStaticString("event: ")
        buffer.writeString(type)
        buffer.writeStaticString("\ndata: ")
        var data = data
        data.withUTF8 { bytes in
            var lines = LineEnds(bytes)
            var start = 0
            while let end = lines.next(from: start) {
                buffer.writeBytes(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[start ..< end])))
                buffer.writeStaticString("\ndata: ")
                start = end + 1
                if bytes[end] == carriageReturn, start < bytes.count, bytes[start] == lineFeed { start += 1 }
            }
            buffer.writeBytes(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[start...])))
        }
        buffer.writeStaticString("\n\n")
        return buffer
    }

    private static let lineFeed = UInt8(ascii: "\n"), carriageReturn = UInt8(ascii: "\r")

    /// The positions of CR and LF in a payload, each searched again only once it is passed, so
    /// a payload of many lines is scanned once, not once per line.
    private struct LineEnds {
        let bytes: UnsafeBufferPointer<UInt8>
        var lineFeedAt: Int?, carriageReturnAt: Int?, searched = false

        init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        /// The first CR or LF at or after `start`, if any.
        mutating func next(from start: Int) -> Int? {
            if !searched || (lineFeedAt.map { $0 < start } ?? false) {
                lineFeedAt = find(SSEFrame.lineFeed, from: start)
            }
            if !searched || (carriageReturnAt.map { $0 < start } ?? false) {
                carriageReturnAt = find(SSEFrame.carriageReturn, from: start)
            }
            searched = true
            switch (lineFeedAt, carriageReturnAt) {
            case let (lf?, cr?): return min(lf, cr)
            case let (lf, cr): return lf ?? cr
            }
        }

        private func find(_ byte: UInt8, from start: Int) -> Int? {
            guard let base = bytes.baseAddress, start < bytes.count,
                  let found = memchr(base + start, Int32(byte), bytes.count - start) else { return nil }
            return UnsafeRawPointer(found) - UnsafeRawPointer(base)
        }
    }

    /// A comment line: keeps proxies from closing an idle stream; browsers ignore it.
    static func comment(_ text: String) -> ByteBuffer {
        ByteBuffer(string: ": \(text)\n\n")
    }

    /// How long the browser waits before reconnecting, in milliseconds.
    static func retry(milliseconds: Int) -> ByteBuffer {
        ByteBuffer(string: "retry: \(milliseconds)\n\n")
    }
}
