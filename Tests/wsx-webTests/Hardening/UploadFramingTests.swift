import Foundation
import HummingbirdTesting
import NIOCore
import Testing
import Uploads
@testable import wsx_web

/// Class: a body's size decided by its framing. Every body byte counts toward the limit,
/// whether the body has a length, is chunked, or runs on after its closing boundary; past the
/// limit the answer is a 413 (or the connection closes) and nothing is written.
@Suite("Upload framing", .timeLimit(.minutes(5)))
struct UploadFramingTests {
    /// Sends `body` as one chunked POST to `path` and returns what came back once the server
    /// answered or closed.
    static func postChunked(_ app: TestSession, _ browser: TestBrowser, path: String, contentType: String,
                            body: [UInt8], chunk: Int = 64 * 1024) async throws -> RawClient {
        let client = try await RawClient.connect(port: app.client.port!)
        try await client.send("POST \(path) HTTP/1.1\r\nHost: wsx\r\nCookie: \(browser.cookieHeader)\r\n"
                              + "Content-Type: \(contentType)\r\nTransfer-Encoding: chunked\r\n\r\n")
        var offset = 0
        while offset < body.count, client.channel.isActive {
            let piece = body[offset..<min(body.count, offset + chunk)]
            var frame = ByteBuffer(string: String(piece.count, radix: 16) + "\r\n")
            frame.writeBytes(piece)
            frame.writeString("\r\n")
            try? await client.channel.writeAndFlush(frame).get()
            offset += piece.count
        }
        try? await client.send("0\r\n\r\n")
        _ = await client.waitFor("\r\n\r\n", within: .seconds(10))
        return client
    }

    static func multipart(_ boundary: String, token: String, content: String, file: [UInt8]?, trailing: Int = 0) -> [UInt8] {
        var body = Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"_csrf\"\r\n\r\n\(token)\r\n".utf8)
        body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"content\"\r\n\r\n\(content)\r\n".utf8)
        if let file {
            body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"files\"; filename=\"doc.pdf\"\r\n\r\n".utf8)
            body += file + Array("\r\n".utf8)
        }
        body += Array("--\(boundary)--\r\n".utf8)
        return body + [UInt8](repeating: UInt8(ascii: "z"), count: trailing)
    }

    @Test("chunked uploads are held to the limits: a file too large, bytes after the closing boundary, and a 500 MB stream")
    func chunkedUploads() async throws {
        try await TestApp { $0.uploads.maximumFileBytes = 100_000 }.run(.live) { app in
            let (a, _, path, _) = try await UploadTests.room(app)
            let token = try #require(a.csrfToken)
            let limit = app.services.files.policy.maximumRequestBytes
            let pdf = Array(Fixture.data("doc.pdf"))
            // A file over its limit, with no length to refuse it by up front.
            let big = try await Self.postChunked(app, a, path: path + "/messages", contentType: "multipart/form-data; boundary=B",
                                                 body: Self.multipart("B", token: token, content: "big", file: pdf + [UInt8](repeating: 32, count: 150_000)))
            #expect(big.received.hasPrefix("HTTP/1.1 413"))
            // A valid form followed by junk until the whole is past the request's limit.
            let junk = try await Self.postChunked(app, a, path: path + "/messages", contentType: "multipart/form-data; boundary=B",
                                                  body: Self.multipart("B", token: token, content: "junk", file: pdf, trailing: limit))
            #expect(junk.received.hasPrefix("HTTP/1.1 413"))
            #expect(junk.received.lowercased().contains("connection: close"))
            #expect(await junk.closed(within: .seconds(5)))
            // A stream far past any limit: refused, then cut off, never read to its end.
            let flood = try await RawClient.connect(port: app.client.port!)
            try await flood.send("POST \(path)/messages HTTP/1.1\r\nHost: wsx\r\nCookie: \(a.cookieHeader)\r\n"
                                 + "Content-Type: multipart/form-data; boundary=B\r\nTransfer-Encoding: chunked\r\n\r\n")
            var frame = ByteBuffer(string: "10000\r\n")
            frame.writeBytes([UInt8](repeating: UInt8(ascii: "q"), count: 0x10000))
            frame.writeString("\r\n")
            var sent = 0
            while flood.channel.isActive, sent < 500 << 20 {
                guard (try? await flood.channel.writeAndFlush(frame).get()) != nil else { break }
                sent += 0x10000
            }
            #expect(await flood.closed(within: .seconds(5)))
            #expect(sent < 100 << 20, "the server read \(sent >> 20) MB of a refused body")
            // Within the limits, chunked works.
            let fine = try await Self.postChunked(app, a, path: path + "/messages", contentType: "multipart/form-data; boundary=B",
                                                  body: Self.multipart("B", token: token, content: "fine", file: pdf))
            #expect(fine.received.hasPrefix("HTTP/1.1 303"))
            #expect(try await app.count("SELECT COUNT(*) FROM messages") == 1)
            #expect(try await app.count("SELECT COUNT(*) FROM messages WHERE body = 'fine'") == 1)
            #expect(UploadTests.diskFiles(app, "tmp").isEmpty)
        }
    }

    @Test("a chunked form that is too long is a 413 and changes nothing")
    func chunkedForms() async throws {
        try await TestApp().run(.live) { app in
            let (a, _, path, _) = try await UploadTests.room(app)
            let token = try #require(a.csrfToken)
            let body = Array("_csrf=\(token)&content=".utf8) + [UInt8](repeating: UInt8(ascii: "w"), count: 3 << 20)
            let response = try await Self.postChunked(app, a, path: path + "/messages", contentType: "application/x-www-form-urlencoded",
                                                      body: body)
            #expect(response.received.hasPrefix("HTTP/1.1 413"))
            #expect(try await app.count("SELECT COUNT(*) FROM messages") == 0)
        }
    }
}
