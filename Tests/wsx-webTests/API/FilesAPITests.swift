import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import NIOFoundationEssentialsCompat
import Testing
@testable import wsx_web

/// `/v1/static/…`: files as the apps fetch them (`../shared/APP-API.md` §3.6, §8).
@Suite("The apps' API: files", .timeLimit(.minutes(3)))
struct FilesAPITests {
    /// The bytes and headers of `path` (`/static/…`) fetched as `app` would.
    static func fetch(_ app: APIClient, _ path: String) async throws -> (status: HTTPResponse.Status, headers: HTTPFields, body: Data) {
        var headers = HTTPFields()
        if let key = app.key { headers[HTTPField.Name("SesacKey")!] = key }
        if let token = app.accessToken { headers[.authorization] = token }
        let response = try await app.client.executeRequest(uri: "/v1" + path, method: .get, headers: headers, body: nil)
        return (response.status, response.headers, Data(buffer: response.body))
    }

    @Test("a chat's files come back byte for byte with the web's headers to a member; anyone else gets E13, no token E02; the default cover is a picture")
    func chatFiles() async throws {
        try await TestApp.withAPI().run { app in
            _ = try await ChannelTests.team(app)
            let owner = try await WorkspacesAPITests.signIn(app, "o@example.com")
            let member = try await WorkspacesAPITests.signIn(app, "m@example.com")
            let workspace = try #require(try await owner.get("/v1/workspaces").array?.first?["workspace_id"] as? String)
            let general = try #require(try await owner.get("/v1/workspaces/\(workspace)/my-channels").array?.first?["channel_id"] as? String)
            let posted = try await owner.multipart(.post, "/v1/workspaces/\(workspace)/channels/\(general)/chats", [("content", "")], files: [
                .init(filename: "회의록.pdf", data: Fixture.data("doc.pdf"), contentType: "application/pdf"),
                .init(filename: "photo.jpg", data: Fixture.data("photo.jpg"), contentType: "image/jpeg"),
            ])
            let paths = try #require(posted.object?["files"] as? [String])
            #expect(posted["content"] == "", "a post of files alone has empty content, never null")

            let pdf = try await Self.fetch(member, paths[0])
            #expect(pdf.status == .ok && pdf.body == Fixture.data("doc.pdf"))
            #expect(pdf.headers[.contentType] == "application/pdf")
            #expect(pdf.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
            let disposition = try #require(pdf.headers[.contentDisposition])
            #expect(disposition.hasPrefix("attachment") && disposition.contains("filename*=UTF-8''%ED%9A%8C%EC%9D%98%EB%A1%9D.pdf"))
            let photo = try await Self.fetch(member, paths[1])
            #expect(photo.status == .ok && photo.body == Fixture.data("photo.jpg") && photo.headers[.contentDisposition]?.hasPrefix("inline") == true)

            let (stranger, _) = try await app.api.joined("stranger@example.com")
            let refused = try await Self.fetch(stranger, paths[0])
            #expect(refused.status == .badRequest && String(decoding: refused.body, as: UTF8.self).contains("E13"))
            var anonymous = member
            anonymous.accessToken = nil
            #expect(String(decoding: try await Self.fetch(anonymous, paths[0]).body, as: UTF8.self).contains("E02"))
            #expect(String(decoding: try await Self.fetch(member, "/static/channelChats/x_000000000000000000000000.pdf").body,
                           as: UTF8.self).contains("E13"))

            let cover = try await Self.fetch(member, APIStaticPaths.defaultCover)
            #expect(cover.status == .ok && cover.headers[.contentType] == "image/png" && cover.body.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        }
    }

    @Test("paths keep a readable name and the real extension of the bytes' type")
    func paths() {
        let file = StoredFile(id: 1, sha256: "", mime: "application/pdf", size: 1, originalName: "분기 보고서/최종.PDF", width: nil,
                              height: nil, hasThumbnail: false, uploaderId: nil, createdAt: Date())
        let path = APIStaticPaths.path(of: file, publicId: "0123456789abcdef01234567", in: .dmChats)
        #expect(path == "/static/dmChats/분기-보고서-최종_0123456789abcdef01234567.pdf")
        #expect(APIStaticPaths.publicId(in: path) == "0123456789abcdef01234567")
        var renamed = file
        (renamed.mime, renamed.originalName) = ("image/png", "screenshot.jpg")
        #expect(APIStaticPaths.fileExtension(of: renamed) == "png", "the bytes decide, not the name")
        #expect(APIStaticPaths.publicId(in: "/static/profiles/nothing.png") == nil)
    }
}
