import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
@testable import wsx_web

/// An app talking to `/v1` as the apps do: the key on every request, the access token raw in
/// `Authorization`, JSON bodies.
struct APIClient: Sendable {
    /// The key tests run the API with (`TestApp.withAPI`).
    static let key = "test-sesac-key"

    let client: any TestClientProtocol
    var key: String? = APIClient.key
    var accessToken: String?

    /// A JSON answer: its status, the object or array, and the error code if it is one.
    struct Reply: Sendable {
        let status: HTTPResponse.Status
        let headers: HTTPFields
        let text: String

        /// The body as a JSON object (nil for anything else).
        var object: [String: any Sendable]? {
            (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: any Sendable]
        }

        /// The body as a JSON array of objects (nil for anything else).
        var array: [[String: any Sendable]]? {
            (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [[String: any Sendable]]
        }

        /// `errorCode`, when the answer is an error.
        var code: String? { object?["errorCode"] as? String }

        subscript(_ key: String) -> String? { object?[key] as? String }
    }

    func call(_ method: HTTPRequest.Method, _ path: String, json: [String: any Sendable]? = nil,
              headers extra: HTTPFields = [:]) async throws -> Reply {
        var headers = extra
        if let key { headers[HTTPField.Name("SesacKey")!] = key }
        if let accessToken, headers[.authorization] == nil { headers[.authorization] = accessToken }
        var body: ByteBuffer?
        if let json {
            headers[.contentType] = "application/json"
            body = ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json))
        }
        let response = try await client.executeRequest(uri: path, method: method, headers: headers, body: body)
        return Reply(status: response.status, headers: response.headers, text: String(buffer: response.body))
    }

    /// Sends a multipart form as WorkSpaceX's own builder does: its boundary, `text/plain` on
    /// each text part, then the files.
    func multipart(_ method: HTTPRequest.Method, _ path: String, _ fields: [(String, String)],
                   files: [TestBrowser.Upload] = []) async throws -> Reply {
        let boundary = "workSpaceX.boundary." + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
        let body = TestBrowser.multipartBody(fields, files: files, boundary: boundary, textType: "text/plain")
        var headers = HTTPFields()
        if let key { headers[HTTPField.Name("SesacKey")!] = key }
        if let accessToken { headers[.authorization] = accessToken }
        headers[.contentType] = "multipart/form-data; boundary=\(boundary)"
        let response = try await client.executeRequest(uri: path, method: method, headers: headers, body: ByteBuffer(bytes: body))
        return Reply(status: response.status, headers: response.headers, text: String(buffer: response.body))
    }

    func get(_ path: String, headers: HTTPFields = [:]) async throws -> Reply {
        try await call(.get, path, headers: headers)
    }

    func post(_ path: String, _ json: [String: any Sendable]) async throws -> Reply {
        try await call(.post, path, json: json)
    }

    /// Signs up `email` through `/v1/users/join`; answers the client signed in and the reply.
    func joined(_ email: String, nickname: String = "앱 사용자", password: String = "Right-password-1") async throws -> (APIClient, Reply) {
        let reply = try await post("/v1/users/join", ["email": email, "password": password, "nickname": nickname,
                                                      "phone": "010-1234-5678", "deviceToken": "apns-token-1"])
        var signedIn = self
        signedIn.accessToken = (reply.object?["token"] as? [String: any Sendable])?["accessToken"] as? String
        return (signedIn, reply)
    }
}

extension TestApp {
    /// A server with the apps' API on (`--api-key`).
    static func withAPI(_ configure: @escaping (inout AppConfig) -> Void = { _ in }) -> TestApp {
        TestApp { config in
            config.api.keys = ["another-key", APIClient.key]
            configure(&config)
        }
    }
}

extension TestSession {
    /// An app without a sign-in.
    var api: APIClient { APIClient(client: client) }
}
