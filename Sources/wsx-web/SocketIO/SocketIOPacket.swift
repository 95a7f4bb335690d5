import Foundation

/// Engine.IO v4's packets over HTTP long-polling (`0` open, `1` close, `2` ping, `3` pong,
/// `4` message, `6` noop), several in one body separated by the record separator (0x1E), and the
/// Socket.IO v5 packet a message carries: its type, namespace, acknowledgement id and JSON data
/// (`40/ws-channel-…,{"token":"…"}` connects to a namespace, `42/ns,["event",{…}]` is an event).
enum EngineIO {
    static let separator = "\u{1e}"

    /// The packets of a polling body.
    static func packets(in body: String) -> [String] {
        body.components(separatedBy: separator).filter { !$0.isEmpty }
    }

    /// A polling body of `packets`.
    static func payload(_ packets: [String]) -> String {
        packets.joined(separator: separator)
    }
}

/// One Socket.IO packet (protocol 5).
struct SocketIOPacket: Sendable, Equatable {
    enum Kind: Int, Sendable {
        case connect = 0, disconnect, event, ack, connectError, binaryEvent, binaryAck
    }

    var kind: Kind
    /// `/` for the main namespace.
    var namespace: String
    var ackId: Int?
    /// The JSON after the header, as sent; nil without any.
    var data: String?

    init(_ kind: Kind, namespace: String, ackId: Int? = nil, data: String? = nil) {
        (self.kind, self.namespace, self.ackId, self.data) = (kind, namespace, ackId, data)
    }

    /// Reads the Socket.IO packet of an Engine.IO message's text (the part after its `4`).
    init?(parsing text: String) {
        var rest = Substring(text)
        guard let first = rest.first, let digit = first.wholeNumberValue, let kind = Kind(rawValue: digit) else { return nil }
        rest = rest.dropFirst()
        if kind == .binaryEvent || kind == .binaryAck { return nil }
        var namespace = "/"
        if rest.first == "/" {
            if let comma = rest.firstIndex(of: ",") {
                namespace = String(rest[..<comma])
                rest = rest[rest.index(after: comma)...]
            } else {
                namespace = String(rest)
                rest = ""
            }
        }
        let digits = rest.prefix { $0.isASCII && $0.isNumber }
        let ackId = digits.isEmpty ? nil : Int(digits)
        rest = rest.dropFirst(digits.count)
        (self.kind, self.namespace, self.ackId) = (kind, namespace, ackId)
        data = rest.isEmpty ? nil : String(rest)
    }

    /// The packet as an Engine.IO message (`4` and the Socket.IO text).
    var message: String {
        var text = "4\(kind.rawValue)"
        if namespace != "/" { text += namespace + "," }
        if let ackId { text += String(ackId) }
        return text + (data ?? "")
    }

    /// An event `name` carrying `json` to `namespace`.
    static func event(_ name: String, json: String, namespace: String) -> SocketIOPacket {
        SocketIOPacket(.event, namespace: namespace, data: "[\(OutgoingEvent.json(name)),\(json)]")
    }
}
