import Foundation
import Testing
@testable import Uploads

/// Office documents, video and audio as people send them (`Tests/Fixtures/files`, made by
/// `tools/make_file_fixtures.py` with python-docx, openpyxl, python-pptx and ffmpeg), typed by
/// their bytes and their container's structure.
@Suite("Office files, video and audio")
struct OfficeAndMediaTypesTests {
    static let expected: [(file: String, mime: String, kind: UploadPolicy.Kind)] = [
        ("회의록.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", .document),
        ("thumbnail-first.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", .document),
        ("예산.xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", .document),
        ("발표.pptx", "application/vnd.openxmlformats-officedocument.presentationml.presentation", .document),
        ("보고서.hwpx", "application/hwp+zip", .document),
        ("기안.hwp", "application/x-hwp", .document),
        ("메모.txt", "text/plain", .document),
        ("명단.csv", "text/csv", .document),
        ("clip.mp4", "video/mp4", .video),
        ("iphone.mov", "video/mp4", .video),
        ("hevc.mov", "video/quicktime", .video),
        ("clip.webm", "video/webm", .video),
        ("tone.mp3", "audio/mpeg", .audio),
        ("tone.m4a", "audio/x-m4a", .audio),
    ]

    static func fixture(_ name: String) -> Data { FixtureFiles.data("files/" + name) }

    @Test("each streams in and is typed by its bytes, whatever it is called", arguments: expected.map(\.file))
    func streamed(file: String) async throws {
        let folder = try FixtureFiles.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let want = try #require(Self.expected.first { $0.file == file })
        let bytes = Self.fixture(file)
        #expect(!bytes.isEmpty)
        let form = try await UploadReceiverTests.receiver(folder).receive(
            UploadReceiverTests.body([("_csrf", nil, Data("ok".utf8)), ("files", "renamed.bin", bytes)]),
            boundary: UploadReceiverTests.boundary, fileFields: ["files"], authorize: { $0 == "ok" })
        #expect(form.files.map(\.mimeType) == [want.mime])
        #expect(form.files.map(\.kind) == [want.kind])
        #expect(try Data(contentsOf: form.files[0].temporaryURL) == bytes)
        form.discardTemporaries()
    }

    @Test("the same types when received whole (an import, a preview)", arguments: expected.map(\.file))
    func whole(file: String) throws {
        let folder = try FixtureFiles.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let want = try #require(Self.expected.first { $0.file == file })
        let received = try UploadReceiverTests.receiver(folder).receive(bytes: [UInt8](Self.fixture(file)), name: file,
                                                                         field: "file", kind: nil)
        #expect(received.mimeType == want.mime && received.kind == want.kind)
        #expect(received.name == file)
        try? FileManager.default.removeItem(at: received.temporaryURL)
    }

    @Test("a DOCX whose first 64 KB are a thumbnail is a zip to libmagic; its directory makes it a DOCX")
    func directoryDecides() throws {
        let bytes = Self.fixture("thumbnail-first.docx")
        #expect(try ContentSniffer().mimeType(of: bytes.prefix(ContentSniffer.sniffLength)) == "application/zip")
        #expect(ContainerTypes.refine("application/zip", fileAt: FixtureFiles.url("files/thumbnail-first.docx"))
            == "application/vnd.openxmlformats-officedocument.wordprocessingml.document")
        // A plain zip stays a zip, and HWPX's declared type is read from its mimetype member.
        #expect(ContainerTypes.refine("application/zip", fileAt: FixtureFiles.url("archive.zip")) == "application/zip")
    }

    @Test("only H.264 QuickTime plays inline (as video/mp4); HEVC downloads")
    func quickTime() {
        #expect(UploadPolicy.playableTypes.contains(ContainerTypes.refine("video/quicktime", fileAt: FixtureFiles.url("files/iphone.mov"))))
        #expect(!UploadPolicy.playableTypes.contains(ContainerTypes.refine("video/quicktime", fileAt: FixtureFiles.url("files/hevc.mov"))))
        #expect(UploadPolicy.playableTypes.isSubset(of: Set(UploadPolicy.allowedTypes.keys)))
    }

    @Test("truncated or lying containers keep libmagic's answer and never read past their bounds")
    func broken() throws {
        let folder = try FixtureFiles.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cases: [(String, Data, String)] = [
            // A zip cut before its central directory.
            ("cut.zip", Self.fixture("보고서.hwpx").prefix(200), "application/zip"),
            // A movie whose first box claims to be larger than the file.
            ("long.mov", Data([0xFF, 0xFF, 0xFF, 0xF0]) + Data("moov".utf8) + Data(repeating: 0, count: 64), "video/quicktime"),
            // A movie whose moov's child boxes claim sizes past their parent.
            ("child.mov", Data([0, 0, 0, 24]) + Data("moov".utf8) + Data([0xFF, 0, 0, 0]) + Data("trak".utf8) + Data(repeating: 0, count: 8),
             "video/quicktime"),
            // An end-of-directory record pointing outside the file.
            ("lying.zip", Data([0x50, 0x4B, 0x03, 0x04]) + Data(repeating: 0, count: 40) + Data([0x50, 0x4B, 0x05, 0x06, 0, 0, 0, 0, 1, 0, 1, 0])
                + Data([0xFF, 0xFF, 0, 0, 0xFF, 0xFF, 0xFF, 0x7F, 0, 0]), "application/zip"),
        ]
        for (name, bytes, sniffed) in cases {
            let url = folder.appendingPathComponent(name)
            try bytes.write(to: url)
            #expect(ContainerTypes.refine(sniffed, fileAt: url) == sniffed, "\(name)")
        }
    }

    @Test("active content stays refused: HTML, SVG with script, shell scripts, executables")
    func activeContent() async throws {
        let folder = try FixtureFiles.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let executable = try Data(contentsOf: URL(fileURLWithPath: "/bin/true")).prefix(ContentSniffer.sniffLength)
        let refused: [(String, Data)] = [
            ("page.txt", FixtureFiles.data("evil.jpg")), ("drawing.csv", FixtureFiles.data("script.svg")),
            ("setup.txt", Data("#!/bin/sh\nrm -rf \"$HOME\"\n".utf8)), ("tool.docx", executable),
        ]
        for (name, bytes) in refused {
            #expect(throws: UploadError.self, "\(name)") {
                _ = try UploadReceiverTests.receiver(folder).receive(bytes: [UInt8](bytes), name: name, field: "file", kind: nil)
            }
        }
        #expect(UploadReceiverTests.temporaries(folder).isEmpty)
    }
}
