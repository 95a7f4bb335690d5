import Foundation
import NIOCore
import Testing
@testable import Uploads

@Suite("Streaming upload receiver")
struct UploadReceiverTests {
    static let boundary = "----wsxTestBoundary"

    struct Chunks: AsyncSequence {
        typealias Element = ByteBuffer
        let chunks: [ByteBuffer]
        let failAfter: Int?

        struct Iterator: AsyncIteratorProtocol {
            var index = 0
            let chunks: [ByteBuffer]
            let failAfter: Int?
            mutating func next() async throws -> ByteBuffer? {
                if let failAfter, index >= failAfter { throw CancellationError() }
                guard index < chunks.count else { return nil }
                defer { index += 1 }
                return chunks[index]
            }
        }

        func makeAsyncIterator() -> Iterator { Iterator(chunks: chunks, failAfter: failAfter) }
    }

    static func body(_ parts: [(name: String, filename: String?, data: Data)], chunk: Int = 1000, failAfter: Int? = nil) -> Chunks {
        var bytes = Data()
        for part in parts {
            var disposition = "form-data; name=\"\(part.name)\""
            if let filename = part.filename { disposition += "; filename=\"\(filename)\"" }
            bytes += Data("--\(boundary)\r\nContent-Disposition: \(disposition)\r\nContent-Type: image/jpeg\r\n\r\n".utf8)
            bytes += part.data + Data("\r\n".utf8)
        }
        bytes += Data("--\(boundary)--\r\n".utf8)
        let chunks = stride(from: 0, to: bytes.count, by: chunk).map { ByteBuffer(bytes: bytes[$0..<min(bytes.count, $0 + chunk)]) }
        return Chunks(chunks: chunks, failAfter: failAfter)
    }

    static func receiver(_ folder: URL, policy: UploadPolicy = UploadPolicy()) throws -> UploadReceiver {
        UploadReceiver(policy: policy, store: try FileStore(dataDirectory: folder.path), sniffer: try ContentSniffer())
    }

    static func temporaries(_ folder: URL) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("tmp").path)) ?? []
    }

    @Test("fields and files arrive; files are hashed, sized and typed by their bytes, not their names")
    func receives() async throws {
        let folder = try FixtureFiles.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let pdf = FixtureFiles.data("doc.pdf"), photo = FixtureFiles.data("photo.jpg")
        let form = try await Self.receiver(folder).receive(
            Self.body([("_csrf", nil, Data("ok".utf8)), ("content", nil, Data("사진 두 장".utf8)),
                       ("files", "사진.png", photo), ("files", "report.jpg", pdf), ("files", "", Data())]),
            boundary: Self.boundary, fileFields: ["files"], authorize: { $0 == "ok" })
        #expect(form["content"] == "사진 두 장")
        #expect(form.files.map(\.name) == ["사진.png", "report.jpg"])
        #expect(form.files.map(\.mimeType) == ["image/jpeg", "application/pdf"])
        #expect(form.files.map(\.size) == [photo.count, pdf.count])
        #expect(try Data(contentsOf: form.files[0].temporaryURL) == photo)
        #expect(form.files[1].sha256.count == 64)
        form.discardTemporaries()
        #expect(Self.temporaries(folder).isEmpty)
    }

    @Test("a refused type (HTML named .jpg, SVG, an empty file) is a 415 and leaves nothing",
          arguments: ["evil.jpg", "script.svg", "empty"])
    func refusedTypes(file: String) async throws {
        let folder = try FixtureFiles.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = file == "empty" ? Data() : FixtureFiles.data(file)
        await #expect(throws: UploadError.self) {
            _ = try await Self.receiver(folder).receive(
                Self.body([("_csrf", nil, Data("ok".utf8)), ("files", "image.png", FixtureFiles.data("image.png")),
                           ("files", file == "empty" ? "empty.jpg" : file, data)]),
                boundary: Self.boundary, fileFields: ["files"], authorize: { _ in true })
        }
        #expect(Self.temporaries(folder).isEmpty)
    }

    @Test("files over the limit, or too many, are refused and removed")
    func limits() async throws {
        let folder = try FixtureFiles.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let small = UploadPolicy(maximumFiles: 2, maximumFileBytes: 10_000)
        await #expect(throws: UploadError.fileTooLarge(limit: 10_000)) {
            _ = try await Self.receiver(folder, policy: small).receive(
                Self.body([("files", "big.jpg", FixtureFiles.data("photo.jpg"))]),
                boundary: Self.boundary, fileFields: ["files"], authorize: { _ in true })
        }
        await #expect(throws: UploadError.tooManyFiles(limit: 2)) {
            _ = try await Self.receiver(folder, policy: small).receive(
                Self.body(Array(repeating: ("files", "a.png", FixtureFiles.data("image.png")), count: 3)),
                boundary: Self.boundary, fileFields: ["files"], authorize: { _ in true })
        }
        #expect(Self.temporaries(folder).isEmpty)
    }

    @Test("every body byte counts, whatever the framing: past the request's limit it is refused, junk after the end included")
    func wholeBodyLimit() async throws {
        let folder = try FixtureFiles.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let policy = UploadPolicy(maximumFiles: 1, maximumFileBytes: 50_000, maximumFieldBytes: 1_000)
        let limit = policy.maximumRequestBytes
        // A valid form, then junk after the closing boundary until the whole is past the limit.
        let valid = Self.body([("_csrf", nil, Data("ok".utf8)), ("files", "a.png", FixtureFiles.data("image.png"))])
        let junk = (0..<(limit / 1000 + 2)).map { _ in ByteBuffer(repeating: UInt8(ascii: "x"), count: 1000) }
        await #expect(throws: UploadError.requestTooLarge(limit: limit)) {
            _ = try await Self.receiver(folder, policy: policy).receive(
                Chunks(chunks: valid.chunks + junk, failAfter: nil), boundary: Self.boundary, fileFields: ["files"],
                authorize: { $0 == "ok" })
        }
        // Junk before the first boundary (a preamble) counts too.
        await #expect(throws: UploadError.requestTooLarge(limit: limit)) {
            _ = try await Self.receiver(folder, policy: policy).receive(
                Chunks(chunks: junk + valid.chunks, failAfter: nil), boundary: Self.boundary, fileFields: ["files"],
                authorize: { $0 == "ok" })
        }
        // Within the limit, junk after the end is allowed (RFC 2046's epilogue) and ignored.
        let form = try await Self.receiver(folder, policy: policy).receive(
            Chunks(chunks: valid.chunks + [ByteBuffer(string: "epilogue")], failAfter: nil), boundary: Self.boundary,
            fileFields: ["files"], authorize: { $0 == "ok" })
        #expect(form.files.count == 1)
        form.discardTemporaries()
        #expect(Self.temporaries(folder).isEmpty)
    }

    @Test("a text field over its limit is named as a field, not as a file")
    func fieldLimit() async throws {
        let folder = try FixtureFiles.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let policy = UploadPolicy(maximumFieldBytes: 1_000)
        await #expect(throws: UploadError.fieldTooLarge(field: "content", limit: 1_000)) {
            _ = try await Self.receiver(folder, policy: policy).receive(
                Self.body([("content", nil, Data(repeating: 65, count: 2_000))]), boundary: Self.boundary,
                fileFields: ["files"], authorize: { _ in true })
        }
    }

    @Test("without the right CSRF token nothing past it is kept")
    func csrf() async throws {
        let folder = try FixtureFiles.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        await #expect(throws: UploadError.forbidden) {
            _ = try await Self.receiver(folder).receive(
                Self.body([("_csrf", nil, Data("wrong".utf8)), ("files", "a.png", FixtureFiles.data("image.png"))]),
                boundary: Self.boundary, fileFields: ["files"], authorize: { $0 == "right" })
        }
        #expect(Self.temporaries(folder).isEmpty)
    }

    @Test("a body that breaks off midway leaves no temporary file")
    func brokenOff() async throws {
        let folder = try FixtureFiles.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        await #expect(throws: (any Error).self) {
            _ = try await Self.receiver(folder).receive(
                Self.body([("files", "a.jpg", FixtureFiles.data("photo.jpg"))], chunk: 1000, failAfter: 5),
                boundary: Self.boundary, fileFields: ["files"], authorize: { _ in true })
        }
        #expect(Self.temporaries(folder).isEmpty)
    }
}
