/// A flat JSON object written straight into UTF-8: what `JSONEncoder` with `.sortedKeys` and
/// `.withoutEscapingSlashes` would write for the same fields, at a fraction of its cost.
///
/// Every post encodes its `message.created` event inside the writer's turn, which all posts
/// wait for, and its JSON answer on the loop; `JSONEncoder` (boxing every value, sorting keys)
/// was the largest Swift cost of a post after rendering its HTML. Keys are written in the
/// order given: callers list them sorted, so events keep the same bytes as before.
struct CompactJSON {
    /// A value of one field.
    enum Value: Sendable, Equatable {
        case int(Int64)
        case string(String)
        case ints([Int64])
        case bool(Bool)
        /// Leaves the field out, as `encodeIfPresent` does with nil.
        case absent

        static func int(_ value: Int) -> Value { .int(Int64(value)) }
        static func optional(_ value: Int64?) -> Value { value.map(Value.int) ?? .absent }
    }

    /// `{"key":value,...}`, fields in the order given, absent ones left out.
    static func object(_ fields: KeyValuePairs<String, Value>) -> String {
        object(fields.map { ($0.key, $0.value) })
    }

    static func object(_ fields: [(key: String, value: Value)]) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        bytes.reserveCapacity(fields.reduce(16) { $0 + $1.key.utf8.count + Self.estimate($1.value) })
        var first = true
        for (key, value) in fields {
            if case .absent = value { continue }
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            appendString(key, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            switch value {
            case .int(let number): bytes.append(contentsOf: String(number).utf8)
            case .string(let text): appendString(text, to: &bytes)
            case .ints(let numbers):
                bytes.append(UInt8(ascii: "["))
                for (index, number) in numbers.enumerated() {
                    if index > 0 { bytes.append(UInt8(ascii: ",")) }
                    bytes.append(contentsOf: String(number).utf8)
                }
                bytes.append(UInt8(ascii: "]"))
            case .bool(let flag): bytes.append(contentsOf: (flag ? "true" : "false").utf8)
            case .absent: break
            }
        }
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func estimate(_ value: Value) -> Int {
        switch value {
        case .string(let text): text.utf8.count + 8
        case .ints(let numbers): numbers.count * 8 + 4
        case .int, .bool, .absent: 24
        }
    }

    /// A JSON string: quote, backslash and control characters escaped as `JSONEncoder` does;
    /// everything else, Korean included, as its own UTF-8. Fragments are full of quotes, so an
    /// escape appends its bytes one by one rather than building an array for each.
    private static func appendString(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            let short: UInt8? = switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): byte
            case 0x0A: UInt8(ascii: "n")
            case 0x0D: UInt8(ascii: "r")
            case 0x09: UInt8(ascii: "t")
            case 0x08: UInt8(ascii: "b")
            case 0x0C: UInt8(ascii: "f")
            default: nil
            }
            if let short {
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(short)
            } else if byte < 0x20 {
                for escaped in "\\u00".utf8 { bytes.append(escaped) }
                bytes.append(hexDigit(byte >> 4))
                bytes.append(hexDigit(byte & 0x0F))
            } else {
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }
}
