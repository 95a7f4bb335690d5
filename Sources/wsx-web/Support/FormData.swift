import Foundation
import Hummingbird

/// The fields of an `application/x-www-form-urlencoded` body, in order, values percent-decoded
/// as UTF-8. Repeated names keep every value.
struct FormData: Sendable {
    private(set) var fields: [(name: String, value: String)] = []

    init(fields: [(name: String, value: String)]) {
        self.fields = fields
    }

    /// Parses `a=1&b=%ED%95%9C`; `+` is a space. Malformed escapes are kept literally.
    init(urlEncoded body: String) {
        for pair in body.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = Self.decode(parts[0])
            let value = parts.count > 1 ? Self.decode(parts[1]) : ""
            fields.append((name, value))
        }
    }

    /// The first value of `name`, as sent.
    subscript(_ name: String) -> String? {
        fields.first { $0.name == name }?.value
    }

    /// Every value of `name`, in order.
    func values(_ name: String) -> [String] {
        fields.filter { $0.name == name }.map(\.value)
    }

    /// `+` becomes a space and `%XX` its byte, over UTF-8 bytes (Foundation's
    /// `removingPercentEncoding` cost 12 µs a field in every post). A malformed escape, or
    /// escapes that do not spell UTF-8, leave the whole value as sent, `+` still a space.
    private static func decode(_ text: Substring) -> String {
        let bytes = text.utf8
        guard bytes.contains(where: { $0 == plus || $0 == percent }) else { return String(text) }
        if let decoded = percentDecoded(bytes), let value = String(validating: decoded, as: UTF8.self) { return value }
        return String(decoding: bytes.map { $0 == plus ? space : $0 }, as: UTF8.self)
    }

    /// The bytes with `+` as a space and each `%XX` as its byte; nil at a malformed escape.
    private static func percentDecoded(_ bytes: Substring.UTF8View) -> [UInt8]? {
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            index = bytes.index(after: index)
            guard byte == percent else {
                decoded.append(byte == plus ? space : byte)
                continue
            }
            guard index < bytes.endIndex, let high = hexValue(bytes[index]) else { return nil }
            let second = bytes.index(after: index)
            guard second < bytes.endIndex, let low = hexValue(bytes[second]) else { return nil }
            decoded.append(high << 4 | low)
            index = bytes.index(after: second)
        }
        return decoded
    }

    private static let plus = UInt8(ascii: "+"), percent = UInt8(ascii: "%"), space = UInt8(ascii: " ")

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0") ... UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a") ... UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A") ... UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
