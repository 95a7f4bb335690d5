import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOFoundationEssentialsCompat
import Testing
import Uploads
@testable import wsx_web

@Suite("Uploads and downloads", .timeLimit(.minutes(5)))
struct UploadTests {
    static func room(_ app: TestSession) async throws -> (a: TestBrowser, b: TestBrowser, path: String, wid: Int64) {
        let (a, b, wid, general) = try await MessagingTests.team(app)
        let path = "/w/\(wid)/c/\(general)"
        try await a.get(path)
        return (a, b, path, wid)
    }

    static func diskFiles(_ app: TestSession, _ folder: String) -> [String] {
        let root = URL(fileURLWithPath: app.services.config.filesFolder).appendingPathComponent(folder)
        let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
        var names: [String] = []
        while let url = walker?.nextObject() as? URL {
            if (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true { names.append(url.lastPathComponent) }
        }
        return names.sorted()
    }

    /// Every stored file, by id (each is attached to a message in these tests).
    static func storedFiles(_ app: TestSession) async throws -> [StoredFile] {
        try app.database.query { tx in
            let messages = try tx.inspection.rows("SELECT id FROM messages", []).map { row in Int64(row[0])! }
            let attached = try tx.files.attachments(messageIds: messages).values.joined()
            let byId = Dictionary(uniqueKeysWithValues: attached.map { file in (file.id!, file) })
            return try tx.inspection.rows("SELECT id FROM files ORDER BY id", []).map { row in
                try #require(byId[Int64(row[0])!], "file \(row[0]) is in no message")
            }
        }
    }

    @Test("an image and a Korean-named PDF attach to a message; the image gets an upright thumbnail; downloads are safe")
    func attachAndDownload() async throws {
        try await TestApp().run { app in
            let (a, b, path, _) = try await Self.room(app)
            let decomposedName = "\u{1112}\u{116C}\u{110B}\u{1174}\u{1105}\u{1169}\u{11A8}.pdf"   // 회의록.pdf in NFD, as macOS sends
            let response = try await a.postMultipart(path + "/messages", [("content", "사진과 회의록")], files: [
                .init(filename: "photo.jpg", data: Fixture.data("photo.jpg"), contentType: "image/jpeg"),
                .init(filename: decomposedName, data: Fixture.data("doc.pdf"), contentType: "application/pdf"),
            ])
            #expect(response.status == .seeOther)
            let files = try await Self.storedFiles(app)
            #expect(files.map(\.originalName) == ["photo.jpg", "회의록.pdf"])
            #expect(files.map(\.mime) == ["image/jpeg", "application/pdf"])
            #expect(files[0].width == 400 && files[0].height == 600)   // EXIF orientation 6: shown portrait
            #expect(Self.diskFiles(app, "files").count == 2)
            #expect(Self.diskFiles(app, "thumbs").count == 1)
            #expect(Self.diskFiles(app, "tmp").isEmpty)

            let page = try await b.get(path)
            #expect(page.text.contains(#"<img class="thumbnail" src="/files/\#(files[0].id!)/thumb""#))
            // The PDF opens in a new tab and has a Download link beside Open.
            let pdfPath = "/files/\(files[1].id!)/%ED%9A%8C%EC%9D%98%EB%A1%9D.pdf"
            #expect(page.text.contains(#"<a class="file-name" href="\#(pdfPath)" target="_blank" rel="noopener">회의록.pdf</a>"#))
            #expect(page.text.contains(#"<a class="file-download" href="\#(pdfPath)?download=1" download>"#))
            #expect(page.text.contains(#"<span class="local-text" lang="ko">다운로드</span><span class="local-text" lang="en">Download</span>"#))

            // A deliberate exception to "attachments download": a PDF is served inline, for the
            // browser's own viewer, under `CSP: sandbox` (no script of it runs as the site).
            let pdf = try await b.get(files[1].url)
            #expect(pdf.status == .ok)
            #expect(pdf.headers[.contentType] == "application/pdf")
            #expect(pdf.headers[.xContentTypeOptions] == "nosniff")
            #expect(pdf.headers[.contentSecurityPolicy] == "sandbox")
            #expect(pdf.headers[.contentDisposition] == "inline; filename=\"___.pdf\"; filename*=UTF-8''%ED%9A%8C%EC%9D%98%EB%A1%9D.pdf")
            let download = try await b.get(files[1].downloadURL)
            #expect(download.headers[.contentDisposition] == "attachment; filename=\"___.pdf\"; filename*=UTF-8''%ED%9A%8C%EC%9D%98%EB%A1%9D.pdf")
            #expect(download.headers[.contentSecurityPolicy] == "sandbox")
            #expect(Data(buffer: download.body) == Fixture.data("doc.pdf"))
            #expect(pdf.headers[.cacheControl]?.hasPrefix("private") == true)
            #expect(Data(buffer: pdf.body) == Fixture.data("doc.pdf"))
            let etag = try #require(pdf.headers[.eTag])
            #expect(try await b.get(files[1].url, headers: [.ifNoneMatch: etag]).status == .notModified)
            let part = try await b.get(files[1].url, headers: [.range: "bytes=0-7"])
            #expect(part.status == .partialContent)
            #expect(part.text == "%PDF-1.4")
            #expect(part.headers[.contentRange] == "bytes 0-7/\(files[1].size)")

            let image = try await b.get(files[0].url)
            #expect(image.headers[.contentDisposition]?.hasPrefix("inline;") == true)
            let thumbnail = try await b.get(files[0].thumbnailURL)
            #expect(thumbnail.headers[.contentType] == "image/jpeg")
            #expect(Data(buffer: thumbnail.body).range(of: Data("WSXTestCam".utf8)) == nil)   // metadata stripped
        }
    }

    @Test("the bytes decide: HTML named .jpg, SVG with script or an empty file is a 415 naming the allowed types, nothing kept",
          arguments: [("evil.jpg", "evil.jpg"), ("script.svg", "pic.png"), ("", "empty.jpg")])
    func refusedTypes(fixture: String, name: String) async throws {
        try await TestApp().run { app in
            let (a, _, path, _) = try await Self.room(app)
            let response = try await a.postMultipart(path + "/messages", [("content", "look")], files: [
                .init(filename: "fine.png", data: Fixture.data("image.png"), contentType: "image/png"),
                .init(filename: name, data: fixture.isEmpty ? Data() : Fixture.data(fixture), contentType: "image/jpeg"),
            ])
            #expect(response.status == .unsupportedMediaType)
            // Without JavaScript: the room page again, the reason beside the composer.
            #expect(response.text.contains(#"<p class="field-error" id="composer-error">This type of file cannot be uploaded. Allowed types: JPEG, PNG, GIF, WebP, PDF, ZIP, HWP, HWPX, DOCX, XLSX, PPTX, ODF, TXT, CSV, MP4, MOV, WebM, MP3, M4A.</p>"#))
            #expect(try await app.count("SELECT COUNT(*) FROM messages") == 0)
            #expect(try await app.count("SELECT COUNT(*) FROM files") == 0)
            #expect(Self.diskFiles(app, "files").isEmpty && Self.diskFiles(app, "tmp").isEmpty)
        }
    }

    @Test("too large by Content-Length is refused before reading; too many files is refused; nothing kept")
    func sizeLimits() async throws {
        try await TestApp { $0.uploads.maximumFileBytes = 10_000; $0.uploads.maximumFiles = 2 }.run { app in
            let (a, _, path, _) = try await Self.room(app)
            let big = try await a.postMultipart(path + "/messages", [("content", "big")], files: [
                .init(filename: "p.pdf", data: Fixture.data("doc.pdf") + Data(repeating: 32, count: 80_000)),
            ])
            #expect(big.status == .contentTooLarge)
            #expect(big.text.contains("Each file can be at most"))
            let many = try await a.postMultipart(path + "/messages", [("content", "many")], files: Array(
                repeating: .init(filename: "i.png", data: Fixture.data("image.png")), count: 3))
            #expect(many.status == .contentTooLarge)
            #expect(many.text.contains("at most 2 files"))
            // Just over the per-file limit but within the request limit: stopped while streaming.
            let streamed = try await a.postMultipart(path + "/messages", [("content", "x")], files: [
                .init(filename: "p.pdf", data: Fixture.data("doc.pdf") + Data(repeating: 32, count: 12_000)),
            ])
            #expect(streamed.status == .contentTooLarge)
            #expect(try await app.count("SELECT COUNT(*) FROM messages") == 0)
            #expect(Self.diskFiles(app, "files").isEmpty && Self.diskFiles(app, "tmp").isEmpty)
        }
    }

    @Test("an upload larger than the server's body-collection limit streams through")
    func largerThanCollectionLimit() async throws {
        try await TestApp { $0.uploads.maximumFileBytes = 4 * 1024 * 1024 }.run { app in
            let (a, _, path, _) = try await Self.room(app)
            let data = Fixture.data("doc.pdf") + Data(repeating: 10, count: 3 * 1024 * 1024)
            let response = try await a.postMultipart(path + "/messages", [], files: [.init(filename: "big.pdf", data: data)])
            #expect(response.status == .seeOther)
            #expect(try await app.count("SELECT size FROM files") == data.count)
        }
    }

    @Test("decompression bombs and truncated images get a clear 422, nothing kept", arguments: ["flood.png", "truncated.jpg"])
    func hostileImages(name: String) async throws {
        try await TestApp().run { app in
            let (a, _, path, _) = try await Self.room(app)
            let response = try await a.postMultipart(path + "/messages", [("content", "x")],
                                                     files: [.init(filename: name, data: Fixture.data(name))])
            #expect(response.status == .unprocessableContent)
            #expect(response.text.contains(name == "flood.png" ? "100000×100000" : "cannot be read"))
            #expect(try await app.count("SELECT COUNT(*) FROM files") == 0)
            #expect(Self.diskFiles(app, "files").isEmpty && Self.diskFiles(app, "thumbs").isEmpty && Self.diskFiles(app, "tmp").isEmpty)
        }
    }

    @Test("the same bytes uploaded twice are stored once; deleting the messages removes rows and bytes")
    func dedupeAndCleanup() async throws {
        try await TestApp().run { app in
            let (a, _, path, wid) = try await Self.room(app)
            for _ in 0..<2 {
                try await a.postMultipart(path + "/messages", [("content", "again")],
                                          files: [.init(filename: "i.png", data: Fixture.data("image.png"))])
            }
            #expect(try await app.count("SELECT COUNT(*) FROM files") == 2)
            #expect(Self.diskFiles(app, "files").count == 1)
            let ids = try app.database.query { tx in try tx.inspection.rows("SELECT id FROM messages", []).map { row in Int64(row[0])! } }
            try await a.get(path)
            try await a.post("/w/\(wid)/m/\(ids[0])/delete", [("confirm", "yes")])
            // The other message still shows the same bytes.
            #expect(try await app.count("SELECT COUNT(*) FROM files") == 1)
            #expect(Self.diskFiles(app, "files").count == 1)
            try await a.post("/w/\(wid)/m/\(ids[1])/delete", [("confirm", "yes")])
            #expect(try await app.count("SELECT COUNT(*) FROM files") == 0)
            #expect(Self.diskFiles(app, "files").isEmpty && Self.diskFiles(app, "thumbs").isEmpty)

            // Deleting a channel takes its files with it.
            let cid = try await a.createChannel(in: wid, "doomed")
            try await a.get("/w/\(wid)/c/\(cid)")
            try await a.postMultipart("/w/\(wid)/c/\(cid)/messages", [], files: [.init(filename: "d.pdf", data: Fixture.data("doc.pdf"))])
            #expect(Self.diskFiles(app, "files").count == 1)
            try await a.confirm("/w/\(wid)/c/\(cid)/delete")
            #expect(try await app.count("SELECT COUNT(*) FROM files") == 0)
            #expect(Self.diskFiles(app, "files").isEmpty)
        }
    }

    @Test("only people in the room may download: others get a 404")
    func downloadAccess() async throws {
        try await TestApp().run { app in
            let (a, b, _, wid) = try await Self.room(app)
            let cid = try await a.createChannel(in: wid, "secret")
            try await a.get("/w/\(wid)/c/\(cid)")
            try await a.postMultipart("/w/\(wid)/c/\(cid)/messages", [], files: [.init(filename: "d.pdf", data: Fixture.data("doc.pdf"))])
            let file = try #require(try await Self.storedFiles(app).first)
            #expect(try await a.get(file.url).status == .ok)
            #expect(try await b.get(file.url).status == .notFound)   // in the workspace, not in the channel
            let stranger = try await app.signedInBrowser(email: "s@example.com")
            #expect(try await stranger.get(file.url).status == .notFound)
            #expect(try await app.browser().get(file.url).status == .seeOther)   // signed out: to the login page
            try await b.get("/w/\(wid)/channels")
            try await b.post("/w/\(wid)/c/\(cid)/join")
            #expect(try await b.get(file.url).status == .ok)
        }
    }

    @Test("multipart without the CSRF token stores nothing; multipart to other routes is refused")
    func multipartCSRF() async throws {
        try await TestApp().run { app in
            let (a, _, path, _) = try await Self.room(app)
            let response = try await a.postMultipart(path + "/messages", [("content", "x")],
                                                     files: [.init(filename: "i.png", data: Fixture.data("image.png"))], csrf: .none)
            #expect(response.status == .forbidden)
            let token = try #require(a.csrfToken)
            #expect(try await a.postMultipart(path + "/messages", [("content", "via header")], csrf: .none,
                                              headers: [CSRFMiddleware.headerName: token]).status == .seeOther)
            #expect(try await a.postMultipart("/logout", [], csrf: .value(token)).status == .unsupportedMediaType)
            #expect(try await app.count("SELECT COUNT(*) FROM files") == 0)
            #expect(try await app.count("SELECT COUNT(*) FROM messages") == 1)
            #expect(try await app.count("SELECT COUNT(*) FROM sessions") == 2)
        }
    }

    @Test("a profile photo shows beside one's messages, downsampled; a PDF is not a photo")
    func profilePhoto() async throws {
        try await TestApp().run { app in
            let (a, b, path, _) = try await Self.room(app)
            try await a.get("/profile")
            let saved = try await a.postMultipart("/profile", [("nickname", "Alice"), ("phone", "")],
                                                  files: [.init(field: "image", filename: "me.jpg", data: Fixture.data("photo.jpg"))])
            #expect(saved.status == .seeOther)
            let avatar = try await app.count("SELECT avatar_file_id FROM users WHERE email = 'a@example.com'")
            #expect(avatar > 0)
            _ = try await MessagingTests.say(a, path, "with a face")
            let page = try await b.get(path)
            #expect(page.text.contains(#"<img class="avatar" src="/files/\#(avatar)/thumb""#))
            #expect(try await b.get("/files/\(avatar)/thumb").status == .ok)   // they share a workspace
            #expect(try await app.signedInBrowser(email: "z@example.com").get("/files/\(avatar)/thumb").status == .notFound)

            try await a.get("/profile")
            let refused = try await a.postMultipart("/profile", [("nickname", "Alice"), ("phone", "")],
                                                    files: [.init(field: "image", filename: "me.pdf", data: Fixture.data("doc.pdf"))])
            #expect(refused.status == .unsupportedMediaType)
            #expect(try await app.count("SELECT avatar_file_id FROM users WHERE email = 'a@example.com'") == avatar)
            // Without a new file the photo stays.
            try await a.postMultipart("/profile", [("nickname", "Alice B"), ("phone", "")])
            #expect(try await app.count("SELECT avatar_file_id FROM users WHERE email = 'a@example.com'") == avatar)
        }
    }

    @Test("the workspace owner sets a cover; a member may not, and nothing of theirs is stored")
    func covers() async throws {
        try await TestApp().run { app in
            let (a, b, _, wid) = try await Self.room(app)
            try await a.get("/w/\(wid)/settings")
            let saved = try await a.postMultipart("/w/\(wid)/settings", [("name", "Chat"), ("description", "with a cover")],
                                                  files: [.init(field: "image", filename: "c.png", data: Fixture.data("image.png"))])
            #expect(saved.status == .seeOther)
            let cover = try await app.count("SELECT cover_file_id FROM workspaces")
            #expect(try await b.get("/w/\(wid)").text.contains(#"<img class="cover-image" src="/files/\#(cover)/thumb""#))
            try await b.get("/w/\(wid)/settings")
            let refused = try await b.postMultipart("/w/\(wid)/settings", [("name", "Mine"), ("description", "")],
                                                    files: [.init(field: "image", filename: "x.png", data: Fixture.data("anim.gif"))])
            #expect(refused.status == .forbidden)
            #expect(try await app.count("SELECT COUNT(*) FROM files") == 1)
        }
    }

    @Test("only bytes that are a PDF open in the browser; a zip, and a PDF's download, are attachments")
    func onlyPDFsOpenInline() async throws {
        try await TestApp().run { app in
            let (a, b, path, _) = try await Self.room(app)
            try await a.postMultipart(path + "/messages", [("content", "files")], files: [
                .init(filename: "report.pdf", data: Fixture.data("archive.zip"), contentType: "application/pdf"),
                .init(filename: "notes.zip", data: Fixture.data("doc.pdf"), contentType: "application/zip"),
            ])
            let files = try await Self.storedFiles(app)
            #expect(files.map(\.mime) == ["application/zip", "application/pdf"])
            let zip = try await b.get(files[0].url)
            #expect(zip.headers[.contentDisposition]?.hasPrefix("attachment;") == true)
            #expect(zip.headers[.contentSecurityPolicy] != "sandbox")
            let zipAsked = try await b.get(files[0].url + "?download=0")
            #expect(zipAsked.headers[.contentDisposition]?.hasPrefix("attachment;") == true)
            let pdf = try await b.get(files[1].url)
            #expect(pdf.headers[.contentDisposition]?.hasPrefix("inline;") == true)
            #expect(pdf.headers[.contentSecurityPolicy] == "sandbox")
            let page = try await b.get(path)
            #expect(page.text.contains(#"<a class="file-card" href="\#(files[0].url)" download>"#))
            #expect(!page.text.contains(#"href="\#(files[0].url)?download=1""#))
        }
    }

    @Test("office documents download under their own label; H.264 video and MP3 play in the page with byte ranges; HEVC downloads")
    func officeFilesAndVideo() async throws {
        try await TestApp().run { app in
            let (a, b, path, _) = try await Self.room(app)
            let names = ["보고서.hwpx", "기안.hwp", "예산.xlsx", "iphone.mov", "hevc.mov"]
            let response = try await a.postMultipart(path + "/messages", [("content", "자료")], files: names.map {
                .init(filename: $0, data: Fixture.data("files/" + $0), contentType: "application/octet-stream")
            })
            #expect(response.status == .seeOther)
            try await a.postMultipart(path + "/messages", [("content", "소리")],
                                      files: [.init(filename: "tone.mp3", data: Fixture.data("files/tone.mp3"))])
            let files = try await Self.storedFiles(app)
            #expect(files.map(\.mime) == ["application/hwp+zip", "application/x-hwp",
                                          "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
                                          "video/mp4", "video/quicktime", "audio/mpeg"])
            let page = try await b.get(path).text
            for (file, label) in zip(files, ["HWPX", "HWP", "XLSX", "MP4", "MOV", "MP3"]) {
                #expect(page.contains(#"<a class="file-card" href="\#(file.url)" download><span class="file-icon" aria-hidden="true">\#(label)</span>"#))
            }
            // The iPhone's H.264 movie and the MP3 get players; the HEVC movie only its card.
            #expect(page.contains(#"<video class="attachment-video" src="\#(files[3].url)" controls preload="metadata" playsinline"#))
            #expect(page.contains(#"<audio class="attachment-audio" src="\#(files[5].url)" controls preload="metadata""#))
            #expect(!page.contains(#"src="\#(files[4].url)""#))

            let video = try await b.get(files[3].url, headers: [.range: "bytes=0-99"])
            #expect(video.status == .partialContent)
            #expect(video.headers[.contentType] == "video/mp4")
            #expect(video.headers[.contentDisposition]?.hasPrefix("inline;") == true)
            #expect(video.headers[.xContentTypeOptions] == "nosniff")
            #expect(Data(buffer: video.body) == Fixture.data("files/iphone.mov").prefix(100))
            #expect(try await b.get(files[3].url + "?download=1").headers[.contentDisposition]?.hasPrefix("attachment;") == true)
            for download in [files[0], files[1], files[2], files[4]] {
                let served = try await b.get(download.url)
                #expect(served.headers[.contentDisposition]?.hasPrefix("attachment;") == true)
                #expect(served.headers[.contentType] == download.mime)
            }
        }
    }

    @Test("several images in one message form a grid; one image stands alone")
    func imageGrid() async throws {
        try await TestApp().run { app in
            let (a, b, path, _) = try await Self.room(app)
            try await a.postMultipart(path + "/messages", [("content", "하나")],
                                      files: [.init(filename: "one.png", data: Fixture.data("image.png"))])
            try await a.postMultipart(path + "/messages", [("content", "셋")], files: [
                .init(filename: "a.png", data: Fixture.data("image.png")), .init(filename: "b.jpg", data: Fixture.data("photo.jpg")),
                .init(filename: "c.webp", data: Fixture.data("image.webp")),
            ])
            let page = try await b.get(path).text
            let grids = page.matches(of: /<div class="image-grid">((?:<a class="attachment-image"[^>]*><img [^>]*><\/a>)+)<\/div>/)
            #expect(grids.count == 1)
            #expect(grids.first.map { $0.1.components(separatedBy: "<img ").count - 1 } == 3)
            #expect(page.components(separatedBy: #"<img class="thumbnail""#).count - 1 == 4)
        }
    }
}
