import Foundation
import Testing
@testable import Uploads

@Suite("File types and images", .serialized)
struct ImagesAndTypesTests {
    static let library = try! ImageLibrary()

    @Test("libmagic types every fixture by its bytes", arguments: [
        ("photo.jpg", "image/jpeg"), ("image.png", "image/png"), ("anim.gif", "image/gif"), ("image.webp", "image/webp"),
        ("doc.pdf", "application/pdf"), ("archive.zip", "application/zip"), ("evil.jpg", "text/html"),
        ("script.svg", "image/svg+xml"),
    ])
    func sniffing(file: String, mime: String) throws {
        #expect(try ContentSniffer().mimeType(of: FixtureFiles.data(file)) == mime)
        let allowed = UploadPolicy.allowedTypes[mime] != nil
        #expect(allowed == !["evil.jpg", "script.svg"].contains(file))
    }

    @Test("a thumbnail is upright, sRGB JPEG, at most 720 px wide, and carries no EXIF or GPS")
    func thumbnail() async throws {
        let folder = try FixtureFiles.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let thumbnailer = Thumbnailer(library: Self.library, policy: UploadPolicy())
        let target = folder.appendingPathComponent("t.jpg")
        let (image, size) = try await thumbnailer.makeThumbnail(of: FixtureFiles.url("photo.jpg"), to: target)
        // The photo is stored 600x400 with Orientation=6: it shows 400 wide, 600 high.
        #expect(image == (400, 600))
        #expect(size == (400, 600))
        let bytes = try Data(contentsOf: target)
        #expect(try ContentSniffer().mimeType(of: bytes) == "image/jpeg")
        #expect(bytes.range(of: Data("Exif".utf8)) == nil)
        #expect(bytes.range(of: Data("WSXTestCam".utf8)) == nil)
        let header = try #require(Self.library.header(ofFile: target))
        #expect(header.orientation == 1)
    }

    @Test("a huge pixel count is refused from the header alone, fast")
    func pixelFlood() async throws {
        let thumbnailer = Thumbnailer(library: Self.library, policy: UploadPolicy())
        let started = ContinuousClock.now
        #expect(throws: ImageError.tooManyPixels(width: 100_000, height: 100_000)) {
            try thumbnailer.inspect(FixtureFiles.url("flood.png"))
        }
        #expect(ContinuousClock.now - started < .seconds(1))
    }

    @Test("a truncated JPEG gets a clear error, not a crash or grey pixels")
    func truncated() async throws {
        let folder = try FixtureFiles.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let thumbnailer = Thumbnailer(library: Self.library, policy: UploadPolicy())
        await #expect(throws: ImageError.self) {
            _ = try await thumbnailer.makeThumbnail(of: FixtureFiles.url("truncated.jpg"), to: folder.appendingPathComponent("t.jpg"))
        }
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("t.jpg").path))
    }

    @Test("SVG and HTML never reach an image loader", arguments: ["script.svg", "evil.jpg", "doc.pdf"])
    func untrustedLoaders(file: String) {
        #expect(throws: ImageError.self) {
            try Thumbnailer(library: Self.library, policy: UploadPolicy()).inspect(FixtureFiles.url(file))
        }
    }

    @Test("GIF, PNG and WebP thumbnails work", arguments: ["anim.gif", "image.png", "image.webp"])
    func otherFormats(file: String) async throws {
        let folder = try FixtureFiles.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = folder.appendingPathComponent("t.jpg")
        _ = try await Thumbnailer(library: Self.library, policy: UploadPolicy()).makeThumbnail(of: FixtureFiles.url(file), to: target)
        #expect(try ContentSniffer().mimeType(of: Data(contentsOf: target)) == "image/jpeg")
    }

    @Test("downloads name files in UTF-8 with an ASCII fallback")
    func contentDisposition() {
        #expect(DownloadHeaders.contentDisposition("회의록.pdf", inline: false)
                == "attachment; filename=\"___.pdf\"; filename*=UTF-8''%ED%9A%8C%EC%9D%98%EB%A1%9D.pdf")
        #expect(DownloadHeaders.contentDisposition("a \"b\".zip", inline: true)
                == "inline; filename=\"a _b_.zip\"; filename*=UTF-8''a%20%22b%22.zip")
    }

    @Test("file names are kept as display text only: NFC, no path, no controls")
    func fileNames() {
        #expect(FileName.clean("../../etc/passwd") == "passwd")
        #expect(FileName.clean("C:\\Users\\x\\회의록.pdf") == "회의록.pdf")
        #expect(FileName.clean("\u{1112}\u{116C}\u{110B}\u{1174}\u{1105}\u{1169}\u{11A8}.pdf") == "회의록.pdf")
        #expect(FileName.clean("evil\u{202E}gpj.exe") == "evilgpj.exe")
        #expect(FileName.clean("") == "file")
    }

    @Test("byte ranges", arguments: [
        ("bytes=0-9", DownloadHeaders.RangeRequest.partial(0...9)), ("bytes=90-", .partial(90...99)),
        ("bytes=-10", .partial(90...99)), ("bytes=95-200", .partial(95...99)), ("bytes=100-", .unsatisfiable),
        ("bytes=0-1,5-6", .whole), ("items=0-1", .whole),
    ])
    func ranges(header: String, expected: DownloadHeaders.RangeRequest) {
        #expect(DownloadHeaders.range(header, size: 100) == expected)
    }
}
