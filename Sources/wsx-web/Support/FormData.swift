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

    private static func decode(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
