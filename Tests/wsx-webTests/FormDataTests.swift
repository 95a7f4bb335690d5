import Foundation
import Testing
@testable import wsx_web

/// Form posts are read by `FormData`: what a browser sends must come out as the person typed it.
@Suite("Form bodies") struct FormDataTests {
    /// Values a browser sends, and some it never would.
    private static let values = [
        "", "plain", "benchmark+post", "%ED%95%9C%EA%B8%80+%F0%9F%99%82", "a%2Bb%3Dc%26d", "100%25",
        "%", "%4", "%zz", "a%4g+b", "%ED%95", "%FF%FE", "%00x", "%ed%95%9c", "한글 그대로+", "+%20+", "%2",
    ]

    /// What Foundation's decoding (the first implementation) made of a value.
    private static func foundation(_ value: String) -> String {
        let spaced = value.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    @Test("each value decodes as Foundation decoded it: + a space, %XX its byte, malformed or non-UTF-8 escapes kept as sent")
    func decodesLikeFoundation() {
        for value in Self.values {
            let form = FormData(urlEncoded: "content=\(value)&\(value)=name")
            #expect(form["content"] == Self.foundation(value), "value \(value)")
            #expect(form.fields.last?.name == Self.foundation(value), "name \(value)")
        }
    }

    @Test("fields keep their order, repeated names every value, and a name without = an empty value")
    func fieldsInOrder() {
        let form = FormData(urlEncoded: "to=1&to=2&&flag&text=%ED%95%9C")
        #expect(form.values("to") == ["1", "2"])
        #expect(form["flag"] == "")
        #expect(form["text"] == "한")
        #expect(form.fields.map(\.name) == ["to", "to", "flag", "text"])
    }
}
