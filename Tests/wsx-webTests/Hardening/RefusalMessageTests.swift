import Foundation
import Testing
@testable import wsx_web

/// Class: errors that mislead. A refusal names what was really wrong, in the words of the
/// field or file it is about, and nothing a client sends is dropped without a word.
@Suite("Refusal messages")
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
}
