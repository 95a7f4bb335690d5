import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import Uploads
@testable import wsx_web

/// Class: errors that mislead. A refusal names what was really wrong, in the words of the
/// field or file it is about, and nothing a client sends is dropped without a word.
@Suite("Refusal messages", .timeLimit(.minutes(5)))
struct RefusalMessageTests {
    @Test("misleading refusals name the real problem: a long text field, two profile pictures, an unreadable file name")
    func clearRefusals() async throws {
        try await TestApp().run { app in
            let (a, _, path, _) = try await UploadTests.room(app)
            let long = try await a.postMultipart(path + "/messages", [("content", String(repeating: "가", count: 70_000))],
                                                 files: [.init(filename: "i.png", data: Fixture.data("image.png"))])
            #expect(long.status == .unprocessableContent)
            #expect(long.text.contains("A message can be at most 5000 characters."))
            try await a.get(path)
            let field = try await a.postMultipart(path + "/messages", [("note", String(repeating: "x", count: 200_000))])
            #expect(field.status == .contentTooLarge)
            #expect(field.text.contains("A field of this form is too long: at most 64 KB."))

            try await a.get("/profile")
            let two = try await a.postMultipart("/profile", [("nickname", "Alice"), ("phone", "")], files: [
                .init(field: "image", filename: "a.jpg", data: Fixture.data("photo.jpg")),
                .init(field: "image", filename: "b.png", data: Fixture.data("image.png")),
            ])
            #expect(two.status == .unprocessableContent)
            #expect(two.text.contains("Choose one picture."))
            #expect(!two.text.contains("cannot be uploaded"))

            // A file whose filename* cannot be decoded is kept under a plain name, not dropped.
            try await a.get(path)
            for disposition in [#"form-data; name="files"; filename*=UTF-8''%ZZbroken.pdf"#,
                                #"form-data; name="files"; filename*=nonsense"#,
                                #"form-data; name="files"; filename*=UTF-8''%E0%A4%A"#] {
                try await a.get(path)
                let broken = try await a.postMultipart(path + "/messages", [], files: [
                    .init(filename: "", data: Fixture.data("doc.pdf"), disposition: disposition),
                ])
                #expect(broken.status == .seeOther, "\(disposition)")
            }
            #expect(try await app.count("SELECT COUNT(*) FROM message_files") == 3)
            #expect(try await app.count("SELECT COUNT(*) FROM files WHERE original_name = 'file'") == 3)
        }
    }

    @Test("an image that needs too much memory decoded is refused with a 422 naming its size and depth, nothing kept")
    func deepImage() async throws {
        try await TestApp { $0.uploads.maximumDecodeBytes = 20_000_000 }.run { app in
            let (a, _, path, _) = try await UploadTests.room(app)
            let refused = try await a.postMultipart(path + "/messages", [("content", "deep")],
                                                    files: [.init(filename: "deep.png", data: Fixture.data("deep.png"))])
            #expect(refused.status == .unprocessableContent)
            #expect(refused.text.contains("2000×2000 pixels with 4 channels of 16 bits"))
            #expect(try await app.count("SELECT COUNT(*) FROM messages") == 0)
            #expect(UploadTests.diskFiles(app, "files").isEmpty && UploadTests.diskFiles(app, "tmp").isEmpty)
            try await a.get(path)
            #expect(try await a.postMultipart(path + "/messages", [("content", "shallow")],
                                              files: [.init(filename: "s.png", data: Fixture.data("shallow.png"))]).status == .seeOther)
        }
    }
}
