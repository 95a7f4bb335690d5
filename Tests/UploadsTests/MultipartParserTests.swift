import Foundation
import NIOCore
import Testing
@testable import Uploads

@Suite("Multipart parser")
struct MultipartParserTests {
    static let boundary = "----wsxBoundary7MA4YWxk"

    /// A body with the given parts, as browsers send it.
    static func body(_ parts: [(headers: String, content: [UInt8])], boundary: String = boundary) -> [UInt8] {
        var bytes: [UInt8] = Array("preamble to ignore\r\n".utf8)
        for part in parts {
            bytes += Array("--\(boundary)\r\n\(part.headers)\r\n\r\n".utf8) + part.content + Array("\r\n".utf8)
        }
        bytes += Array("--\(boundary)--\r\nepilogue".utf8)
        return bytes
    }

    /// Parses `bytes` fed in chunks of `sizes` (cycled), merging body slices per part.
    static func parse(_ bytes: [UInt8], chunkSizes: [Int]) throws -> [(headers: [String], body: [UInt8])] {
        var parser = MultipartParser(boundary: boundary)
        var parts: [(headers: [String], body: [UInt8])] = []
        var offset = 0, turn = 0
        while offset < bytes.count {
            let size = max(1, chunkSizes[turn % chunkSizes.count])
            turn += 1
            let chunk = ByteBuffer(bytes: bytes[offset..<min(bytes.count, offset + size)])
            offset += size
            for event in try parser.feed(chunk) {
                switch event {
                case .headers(let headers): parts.append((headers.map { "\($0.name)=\($0.value)" }, []))
                case .body(var slice): parts[parts.count - 1].body += slice.readBytes(length: slice.readableBytes)!
                case .partEnd, .end: break
                }
            }
        }
        try parser.finish()
        return parts
    }

    @Test("fields and a binary file come out whole, whatever the chunking")
    func chunking() throws {
        var binary: [UInt8] = (0..<5000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        // Traps: CRLF, CRLF--, and most of a boundary inside the file.
        binary += Array("\r\n\r\n--\r\n--".utf8) + Array("\r\n--\(Self.boundary.dropLast())x".utf8) + [13, 13, 10]
        let bytes = Self.body([
            ("Content-Disposition: form-data; name=\"_csrf\"", Array("token".utf8)),
            ("Content-Disposition: form-data; name=\"content\"", Array("안녕\r\n하세요".utf8)),
            ("Content-Disposition: form-data; name=\"files\"; filename=\"a.bin\"\r\nContent-Type: application/octet-stream", binary),
            ("Content-Disposition: form-data; name=\"files\"; filename=\"empty.txt\"", []),
        ])
        for sizes in [[bytes.count], [1], [2, 3], [7, 64, 1], [4096], [13, 1000, 5]] {
            let parts = try Self.parse(bytes, chunkSizes: sizes)
            #expect(parts.count == 4, "chunks \(sizes)")
            #expect(parts[0].body == Array("token".utf8))
            #expect(parts[1].body == Array("안녕\r\n하세요".utf8))
            #expect(parts[2].body == binary, "chunks \(sizes)")
            #expect(parts[2].headers.contains("content-type=application/octet-stream"))
            #expect(parts[3].body.isEmpty)
        }
    }

    @Test("random bodies in random chunks parse to what was sent")
    func randomized() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let count = Int.random(in: 0...3000, using: &generator)
            // A small alphabet makes boundary-like runs common.
            let alphabet = Array("\r\n-wsxB".utf8)
            let content = (0..<count).map { _ in alphabet.randomElement(using: &generator)! }
            let bytes = Self.body([("Content-Disposition: form-data; name=\"f\"; filename=\"r\"", content)])
            let sizes = (0..<5).map { _ in Int.random(in: 1...600, using: &generator) }
            let parts = try Self.parse(bytes, chunkSizes: sizes)
            #expect(parts.count == 1 && parts[0].body == content)
        }
    }

    @Test("a body cut off before its closing boundary is an error, not a short file")
    func truncated() throws {
        let bytes = Self.body([("Content-Disposition: form-data; name=\"f\"", Array(repeating: 65, count: 100))])
        #expect(throws: MultipartParser.ParseError.unexpectedEnd) {
            try Self.parse(Array(bytes.prefix(bytes.count - 20)), chunkSizes: [50])
        }
    }

    @Test("oversized headers and too many parts are refused")
    func limits() throws {
        let hugeHeader = "Content-Disposition: form-data; name=\"x\"\r\nX-Pad: " + String(repeating: "a", count: 20_000)
        #expect(throws: MultipartParser.ParseError.headersTooLarge) {
            try Self.parse(Self.body([(hugeHeader, [1])]), chunkSizes: [1000])
        }
        var parser = MultipartParser(boundary: Self.boundary, maximumParts: 2)
        let many = Self.body((0..<3).map { _ in ("Content-Disposition: form-data; name=\"x\"", [1]) })
        #expect(throws: MultipartParser.ParseError.tooManyParts) { _ = try parser.feed(ByteBuffer(bytes: many)) }
    }

    @Test("boundaries and file names are read from headers, Korean names included")
    func headerValues() {
        #expect(MultipartParser.boundary(fromContentType: "multipart/form-data; boundary=abc") == "abc")
        #expect(MultipartParser.boundary(fromContentType: "multipart/form-data; charset=utf-8; boundary=\"a b\"") == "a b")
        #expect(MultipartParser.boundary(fromContentType: "application/json") == nil)
        let plain = MultipartParser.disposition([("content-disposition", #"form-data; name="files"; filename="회의록 \"최종\".pdf""#)])
        #expect(plain.name == "files" && plain.filename == #"회의록 "최종".pdf"#)
        let star = MultipartParser.disposition([("content-disposition", "form-data; name=\"f\"; filename=\"x.pdf\"; filename*=UTF-8''%ED%9A%8C%EC%9D%98.pdf")])
        #expect(star.filename == "회의.pdf")
    }
}
