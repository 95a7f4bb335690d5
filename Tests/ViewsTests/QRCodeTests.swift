import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import Views

/// Our QR encoder must draw, module for module, what an independent encoder draws for the same
/// text. The fixtures are the matrices of segno 1.6.6 (PyPI), made with
/// `segno.make(data, error='m', version=V, mask=M, mode='byte', boost_error=False)` at the
/// version and mask we chose; left to choose by itself (`micro=False`), segno picks the same
/// version and mask, which pins our penalty rules too. One change to segno: it adds eight zero
/// padding bits when the bit stream already ends on a codeword boundary (heuer/segno#148, open),
/// where ISO/IEC 18004 adds none, so the fixtures were made with that one function corrected.
@Suite("QR codes")
struct QRCodeTests {
    struct Sample: Sendable, CustomTestStringConvertible {
        let fixture: String
        let text: String
        /// segno's own choice for this text at level M.
        let version: Int
        let mask: Int
        var testDescription: String { fixture }
    }

    static let samples = [
        Sample(fixture: "qr-otpauth",
               text: "otpauth://totp/wsx:minah%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=wsx&algorithm=SHA1&digits=6&period=30",
               version: 7, mask: 3),
        Sample(fixture: "qr-hello-world", text: "HELLO WORLD", version: 1, mask: 4),
        Sample(fixture: "qr-300-bytes", text: String(repeating: "0123456789", count: 30), version: 13, mask: 2),
        Sample(fixture: "qr-korean", text: "민아님, 이 QR 코드를 인증 앱으로 스캔하세요", version: 4, mask: 4),
    ]

    static func fixture(_ name: String) throws -> [String] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/\(name).txt")
        return try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    static func rows(_ code: QRCode) -> [String] {
        (0..<code.size).map { y in String((0..<code.size).map { code.isDark(x: $0, y: y) ? "1" : "0" }) }
    }

    @Test("each module matches the reference encoder's, at the version and mask it chose", arguments: samples)
    func matchesReference(sample: Sample) throws {
        let code = try QRCode(text: sample.text)
        #expect(code.version == sample.version)
        #expect(code.mask == sample.mask)
        #expect(code.size == 4 * sample.version + 17)
        let expected = try Self.fixture(sample.fixture)
        #expect(expected.count == code.size)
        let drawn = Self.rows(code)
        for (y, row) in expected.enumerated() where y < drawn.count {
            #expect(drawn[y] == row, "row \(y)")
        }
    }

    @Test("text encodes as its UTF-8 bytes; another mask or correction level draws other modules")
    func inputsAndOptions() throws {
        let text = Self.samples[3].text
        let chosen = Self.rows(try QRCode(text: text))
        #expect(try Self.rows(QRCode(bytes: Array(text.utf8))) == chosen)
        let forced = try QRCode(bytes: Array(text.utf8), correction: .medium, version: 4, mask: 0)
        #expect(forced.mask == 0 && Self.rows(forced) != chosen)
        #expect(try Self.rows(QRCode(text: text, correction: .high)) != chosen)
    }

    @Test("outside the symbol every module is light, the quiet zone")
    func quietZone() throws {
        let code = try QRCode(text: "HELLO WORLD")
        #expect(code.isDark(x: 0, y: 0))
        #expect(!code.isDark(x: -1, y: 0) && !code.isDark(x: 0, y: -1) && !code.isDark(x: code.size, y: 0))
    }

    // MARK: Mask penalties

    @Test("each mask's penalty points (N1 to N4) are the reference encoder's")
    func penalties() {
        // segno's `encoder.mask_scores` on the same masked symbols, format areas still light.
        let expected: [QRPenalty.Scores] = [
            .init(runs: 754, blocks: 984, finderLike: 960, balance: 0), .init(runs: 743, blocks: 852, finderLike: 1080, balance: 0),
            .init(runs: 673, blocks: 786, finderLike: 840, balance: 0), .init(runs: 677, blocks: 813, finderLike: 800, balance: 0),
            .init(runs: 682, blocks: 861, finderLike: 840, balance: 0), .init(runs: 703, blocks: 816, finderLike: 840, balance: 0),
            .init(runs: 713, blocks: 819, finderLike: 960, balance: 0), .init(runs: 679, blocks: 906, finderLike: 920, balance: 0),
        ]
        let layout = QRLayout(version: 7, correction: .medium)
        var unmasked = QRMatrix(version: 7)
        unmasked.place(QRCodewords.final(QRCodewords.data(Array(Self.samples[0].text.utf8), in: layout), in: layout))
        for (mask, scores) in expected.enumerated() {
            var matrix = unmasked
            matrix.applyMask(mask)
            #expect(QRPenalty.scores(matrix) == scores, "mask \(mask)")
        }
    }

    @Test("a finder-like pattern scores once, and of two sharing modules only the first", arguments: [
        ("000010111010000", 40),
        ("0000000000000000000010111010000000000000", 40),
        ("1000001011101110100000010011100011011", 40),
        ("101110101110111101101111111100001011101011101", 80),
        ("11011101110100001011101001111001010100111000101001001100100011101", 80),
    ])
    func finderLike(line: String, points: Int) {
        // Points segno gives each line (as the only row of a symbol otherwise light).
        #expect(QRPenalty.finderLike(line.map { $0 == "1" }) == points)
    }

    // MARK: Limits

    /// Bytes each version holds in byte mode at L, M, Q and H (table 7; segno agrees).
    static let capacities = [
        [17, 32, 53, 78, 106, 134, 154, 192, 230, 271, 321, 367, 425, 458, 520, 586, 644, 718, 792, 858,
         929, 1003, 1091, 1171, 1273, 1367, 1465, 1528, 1628, 1732, 1840, 1952, 2068, 2188, 2303, 2431, 2563, 2699, 2809, 2953],
        [14, 26, 42, 62, 84, 106, 122, 152, 180, 213, 251, 287, 331, 362, 412, 450, 504, 560, 624, 666,
         711, 779, 857, 911, 997, 1059, 1125, 1190, 1264, 1370, 1452, 1538, 1628, 1722, 1809, 1911, 1989, 2099, 2213, 2331],
        [11, 20, 32, 46, 60, 74, 86, 108, 130, 151, 177, 203, 241, 258, 292, 322, 364, 394, 442, 482,
         509, 565, 611, 661, 715, 751, 805, 868, 908, 982, 1030, 1112, 1168, 1228, 1283, 1351, 1423, 1499, 1579, 1663],
        [7, 14, 24, 34, 44, 58, 64, 84, 98, 119, 137, 155, 177, 194, 220, 250, 280, 310, 338, 382,
         403, 439, 461, 511, 535, 593, 625, 658, 698, 742, 790, 842, 898, 958, 983, 1051, 1093, 1139, 1219, 1273],
    ]

    @Test("every version holds the bytes the standard lists at each level, and not one more")
    func capacity() {
        for (level, correction) in QRCode.Correction.allCases.enumerated() {
            for version in 1...40 {
                let layout = QRLayout(version: version, correction: correction)
                let most = Self.capacities[level][version - 1]
                #expect(QRCodewords.fits(byteCount: most, in: layout), "\(correction) \(version)")
                #expect(!QRCodewords.fits(byteCount: most + 1, in: layout), "\(correction) \(version)")
            }
        }
    }

    @Test("text longer than version 40 holds throws TooLong; the most it holds fits")
    func tooLong() throws {
        // Byte-mode capacity of version 40 (ISO/IEC 18004 table 7): 2953 at L, 2331 at M.
        let most = try QRCode(bytes: Array(repeating: 0x61, count: 2331))
        #expect(most.version == 40 && most.size == 177)
        #expect(throws: QRCode.TooLong(byteCount: 2332, correction: .medium)) {
            try QRCode(text: String(repeating: "a", count: 2332))
        }
        #expect(try QRCode(bytes: Array(repeating: 0x61, count: 2953), correction: .low).version == 40)
        #expect(throws: QRCode.TooLong.self) {
            try QRCode(text: String(repeating: "가", count: 1000), correction: .low)
        }
    }

    // MARK: SVG

    /// What the parser saw: every element with its attributes, or the error that stopped it.
    final class SVGReader: NSObject, XMLParserDelegate {
        var elements: [(name: String, attributes: [String: String])] = []
        var error: (any Error)?

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                    qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
            elements.append((elementName, attributeDict))
        }

        func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) { error = parseError }
    }

    static func parse(_ svg: String) -> SVGReader {
        let reader = SVGReader()
        let parser = XMLParser(data: Data(svg.utf8))
        parser.delegate = reader
        _ = parser.parse()
        return reader
    }

    @Test("the SVG is well-formed XML: background, one path, a quiet zone, the asked width")
    func svgShape() throws {
        let code = try QRCode(text: Self.samples[0].text)
        let reader = Self.parse(code.svg(moduleSize: 5, label: "Scan"))
        #expect(reader.error == nil)
        #expect(reader.elements.map(\.name) == ["svg", "rect", "path"])
        let root = try #require(reader.elements.first?.attributes)
        #expect(root["width"] == "265" && root["height"] == "265")  // (45 + 8) × 5
        #expect(root["viewBox"] == "0 0 53 53")
        #expect(root["shape-rendering"] == "crispEdges" && root["role"] == "img")
        #expect(reader.elements[1].attributes["fill"] == "#fff")
        #expect(try QRCode(text: "HELLO WORLD").svg(label: "x").contains(#"width="116" height="116""#))  // (21 + 8) × 4
    }

    @Test("the label is escaped and reads back as written")
    func svgLabel() throws {
        let label = #"<script>alert("민아's code")</script> & more"#
        let svg = try QRCode(text: "HELLO WORLD").svg(label: label)
        #expect(!svg.contains("<script>"))
        #expect(svg.contains("&lt;script&gt;alert(&quot;민아&#39;s code&quot;)&lt;/script&gt; &amp; more"))
        let reader = Self.parse(svg)
        #expect(reader.error == nil)
        #expect(reader.elements.first?.attributes["aria-label"] == label)
    }

    @Test("the path covers exactly the dark modules, one rectangle per run, offset by the quiet zone")
    func svgPath() throws {
        let code = try QRCode(text: Self.samples[3].text)
        let d = try #require(Self.parse(code.svg(label: "QR")).elements.last?.attributes["d"])
        let run = /M(\d+) (\d+)h(\d+)v1h-(\d+)z/
        var drawn = Set<[Int]>()
        var runs = 0
        for match in d.matches(of: run) {
            let x = Int(match.1) ?? -1, y = Int(match.2) ?? -1, width = Int(match.3) ?? -1
            #expect(match.3 == match.4)
            #expect(!code.isDark(x: x - 5, y: y - 4) && !code.isDark(x: x + width - 4, y: y - 4), "runs are merged")
            for column in x..<x + width { drawn.insert([column - 4, y - 4]) }
            runs += 1
        }
        #expect(d.matches(of: run).map { $0.output.0.count }.reduce(0, +) == d.count)
        let dark = Set((0..<code.size).flatMap { y in (0..<code.size).filter { code.isDark(x: $0, y: y) }.map { [$0, y] } })
        #expect(drawn == dark)
        #expect(runs < dark.count)
    }
}
