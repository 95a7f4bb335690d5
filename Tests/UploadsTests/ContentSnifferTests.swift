import Foundation
import Testing
@testable import Uploads

/// A 1×1 PNG, and a 3×2 one, made by hand (valid CRCs), used as real fixture bytes.
enum Fixtures {
    static let png1x1 = Data(base64Encoded:
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")!
    static let pdf = Data("%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n".utf8)
    static let html = Data("<!DOCTYPE html><html><body><script>alert(1)</script></body></html>".utf8)
}

@Suite("Content sniffing (libmagic)")
struct ContentSnifferTests {
    @Test("bytes decide the type, whatever the file would be called")
    func bytesDecide() throws {
        let sniffer = try ContentSniffer()
        #expect(sniffer.mimeType(of: Fixtures.png1x1) == "image/png")
        #expect(sniffer.mimeType(of: Fixtures.pdf) == "application/pdf")
        #expect(sniffer.mimeType(of: Fixtures.html) == "text/html")
    }

    @Test("libvips reads an image's size from its header")
    func headerIsRead() throws {
        let images = try ImageLibrary()
        let header = try #require(images.header(of: Fixtures.png1x1))
        #expect(header.width == 1 && header.height == 1)
        #expect(header.loader.hasPrefix("pngload"))
        #expect(images.header(of: Fixtures.html) == nil)
    }
}
