import NIOCore

/// Server-Sent Events wire format (HTML Living Standard §9.2).
enum SSEFrame {
    /// `id:`, `event:` and one `data:` line per line of `data`, ended by a blank line.
    static func event(id: Int64?, type: String, data: String) -> ByteBuffer {
        var text = ""
        if let id { text += "id: \(id)\n" }
        text += "event: \(type)\n"
        for line in data.split(separator: "\n", omittingEmptySubsequences: false) {
            text += "data: \(line)\n"
        }
        text += "\n"
        return ByteBuffer(string: text)
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
