import Foundation
import Testing
@testable import wsx_web

/// Event payloads and JSON answers are written by `CompactJSON`: browsers must read exactly what
/// `JSONEncoder` used to send.
@Suite("Compact JSON", .timeLimit(.minutes(5)))
struct CompactJSONTests {
    private struct Sample: Codable, Equatable {
        let authorId: Int64?
        let html: String
        let mentions: [Int64]
        let messageId: Int64
    }

    private static let texts = [
        "", "plain", "회의는 내일 10시에 🙂", #"<p class="m">a/b \ c</p>"#, "line\nbreak\r\n\ttab",
        "bell\u{07} nul\u{00} unit\u{1F} del\u{7F} sep\u{2028}", "\u{08}\u{0C}",
    ]

    private static func encoded(_ sample: Sample) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(sample), as: UTF8.self)
    }

    private static func written(_ sample: Sample) -> String {
        CompactJSON.object(["authorId": .optional(sample.authorId), "html": .string(sample.html),
                            "mentions": .ints(sample.mentions), "messageId": .int(sample.messageId)])
    }

    @Test("the same bytes as JSONEncoder for Korean, quotes, slashes, control characters and emoji")
    func sameBytes() throws {
        for (index, text) in Self.texts.enumerated() {
            let sample = Sample(authorId: index.isMultiple(of: 2) ? Int64(index) : nil, html: text,
                                mentions: Array(0..<Int64(index)), messageId: -Int64(index) * 1_000_000_007)
            let written = Self.written(sample)
            #expect(written == (try Self.encoded(sample)), "text \(index)")
            #expect(try JSONDecoder().decode(Sample.self, from: Data(written.utf8)) == sample)
        }
    }

    @Test("a message event's payload is what JSONEncoder wrote for it, with and without an author")
    func messagePayload() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for author in [#""authorId":7,"#, ""] {
            let source = #"{\#(author)"authorNickname":"민지 \"MJ\"","html":"<li id=\"m-5\">회의 🙂\n</li>","mentions":[3,9],"#
                + #""messageId":5,"roomId":2,"roomKind":"channel","roomName":"일반","snippet":"회의","url":"/w/1/c/2","workspaceId":1}"#
            let payload = try JSONDecoder().decode(MessagePayload.self, from: Data(source.utf8))
            #expect(payload.json == String(decoding: try encoder.encode(payload), as: UTF8.self))
            #expect(payload.json == source)
        }
    }

    @Test("absent fields are left out; an empty object is {}")
    func absent() {
        #expect(CompactJSON.object(["a": .absent, "b": .int(1), "c": .absent]) == #"{"b":1}"#)
        #expect(CompactJSON.object(["a": .absent]) == "{}")
        #expect(CompactJSON.object(["n": .ints([])]) == #"{"n":[]}"#)
    }
}
