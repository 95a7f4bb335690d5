import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import wsx_web

/// A post sent again after its answer was lost (the script retries with the same `client_id`)
/// is one message, not two.
@Suite("Posting again with a client id", .timeLimit(.minutes(5)))
struct ClientIdTests {
    @Test("the same client id from the same author posts once and answers with that message")
    func repeatPostsOnce() async throws {
        try await TestApp().run { app in
            let (a, b, wid, general) = try await MessagingTests.team(app)
            let path = "/w/\(wid)/c/\(general)"
            try await a.get(path)
            let json: HTTPFields = [.accept: "application/json"]
            let first = try await a.post(path + "/messages", [("content", "한 번만"), ("client_id", "c-0123456789abcdef")], headers: json)
            #expect(first.status == .created)
            let again = try await a.post(path + "/messages", [("content", "한 번만"), ("client_id", "c-0123456789abcdef")], headers: json)
            #expect(again.status == .ok)
            let id = try #require(first.text.firstMatch(of: /"id":(\d+)/)?.1)
            #expect(again.text.contains(#""id":\#(id)"#))
            #expect(try await app.count("SELECT COUNT(*) FROM messages WHERE body = '한 번만'") == 1)
            #expect(try await app.count("SELECT COUNT(*) FROM events WHERE type = 'message.created'") == 1)

            // Without a script, the form's repeat comes back to the same message too.
            let form = try await a.post(path + "/messages", [("content", "한 번만"), ("client_id", "c-0123456789abcdef")])
            #expect(form.location == path + "#m-\(id)")

            // Another author's id space is their own.
            try await b.get(path)
            #expect(try await b.post(path + "/messages", [("content", "저도"), ("client_id", "c-0123456789abcdef")], headers: json)
                .status == .created)
            // And without a client id, every post is a post.
            try await a.post(path + "/messages", [("content", "둘")])
            try await a.post(path + "/messages", [("content", "둘")])
            #expect(try await app.count("SELECT COUNT(*) FROM messages WHERE body = '둘'") == 2)
        }
    }

    @Test("a repeated post with files attaches them once; a malformed client id is refused and nothing is kept")
    func filesAndMalformedIds() async throws {
        try await TestApp().run { app in
            let (a, _, wid, general) = try await MessagingTests.team(app)
            let path = "/w/\(wid)/c/\(general)"
            try await a.get(path)
            for _ in 0..<2 {
                let sent = try await a.postMultipart(path + "/messages", [("content", "사진"), ("client_id", "photo-retry-1")],
                                                     files: [.init(filename: "photo.jpg", data: Fixture.data("photo.jpg"))])
                #expect(sent.status == .seeOther)
            }
            #expect(try await app.count("SELECT COUNT(*) FROM messages") == 1)
            #expect(try await app.count("SELECT COUNT(*) FROM message_files") == 1)

            for bad in ["short", "has space here", String(repeating: "x", count: 65), "한글한글한글한글"] {
                let refused = try await a.postMultipart(path + "/messages", [("content", "x"), ("client_id", bad)],
                                                        files: [.init(filename: "photo.jpg", data: Fixture.data("photo.jpg"))])
                #expect(refused.status == .badRequest, "\(bad)")
            }
            #expect(try await app.count("SELECT COUNT(*) FROM messages") == 1)
            #expect(UploadTests.diskFiles(app, "tmp").isEmpty)
        }
    }
}
