import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting

/// A browser in a test: keeps cookies between requests as a real one would, remembers the CSRF
/// token of the last page it loaded, and fills forms.
final class TestBrowser: @unchecked Sendable {
    let client: any TestClientProtocol
    var acceptLanguage: String?
    /// Cookies by name, as the server last set them.
    private(set) var cookies: [String: String] = [:]
    /// Every `Set-Cookie` header value received, newest last.
    private(set) var setCookieHeaders: [String] = []
    /// The CSRF token of the last HTML page loaded.
    var csrfToken: String?
    /// Headers sent with every request (`X-Forwarded-For`, to be another address).
    var extraHeaders: HTTPFields = [:]

    init(client: any TestClientProtocol, acceptLanguage: String?) {
        self.client = client
        self.acceptLanguage = acceptLanguage
    }

    @discardableResult
    func get(_ uri: String, headers: HTTPFields = [:]) async throws -> TestResponse {
        try await send(uri, method: .get, headers: headers, body: nil)
    }

    /// Opens a room or thread page as a person reads it: the page, then the read its script sends
    /// once the newest messages are in view (the same POST as the page's no-script "mark as read"
    /// form). A GET alone records no reading.
    @discardableResult
    func read(_ uri: String) async throws -> TestResponse {
        let page = try await get(uri)
        if let form = Self.markReadForm(page.text) { try await post(form.action, [("message_id", form.upTo)]) }
        return page
    }

    /// The "mark as read" form a page shows under unread messages: where it posts, and the id.
    static func markReadForm(_ html: String) -> (action: String, upTo: String)? {
        guard let form = html.range(of: #"class="inline-form mark-read-form""#),
              let start = html[..<form.lowerBound].range(of: #"action=""#, options: .backwards),
              let actionEnd = html[start.upperBound...].firstIndex(of: "\""),
              let idStart = html[form.upperBound...].range(of: #"name="message_id" value=""#),
              let idEnd = html[idStart.upperBound...].firstIndex(of: "\"") else { return nil }
        return (String(html[start.upperBound..<actionEnd]), String(html[idStart.upperBound..<idEnd]))
    }

    /// Posts a urlencoded form; adds the CSRF token of the last page unless `csrf` says otherwise.
    @discardableResult
    func post(_ uri: String, _ fields: [(String, String)] = [], csrf: CSRF = .fromLastPage,
              headers: HTTPFields = [:]) async throws -> TestResponse {
        var fields = fields
        switch csrf {
        case .fromLastPage:
            if csrfToken == nil { try await get("/login") }
            fields.insert(("_csrf", csrfToken ?? ""), at: 0)
        case .value(let token): fields.insert(("_csrf", token), at: 0)
        case .none: break
        }
        var headers = headers
        headers[.contentType] = "application/x-www-form-urlencoded"
        return try await send(uri, method: .post, headers: headers, body: ByteBuffer(string: Self.encode(fields)))
    }

    /// Posts a JSON body as a page's script does, the CSRF token in `X-CSRF-Token` (unless `csrf`
    /// is false).
    @discardableResult
    func postJSON(_ uri: String, _ json: String, csrf: Bool = true) async throws -> TestResponse {
        if csrfToken == nil { try await get("/login") }
        var headers: HTTPFields = [.contentType: "application/json"]
        if csrf { headers[HTTPField.Name("X-CSRF-Token")!] = csrfToken ?? "" }
        return try await send(uri, method: .post, headers: headers, body: ByteBuffer(string: json))
    }

    enum CSRF {
        case fromLastPage
        case value(String)
        case none
    }

    func send(_ uri: String, method: HTTPRequest.Method, headers: HTTPFields, body: ByteBuffer?) async throws -> TestResponse {
        var headers = headers
        if !cookies.isEmpty, headers[.cookie] == nil {
            headers[.cookie] = cookies.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "; ")
        }
        if let acceptLanguage, headers[.acceptLanguage] == nil { headers[.acceptLanguage] = acceptLanguage }
        for field in extraHeaders where headers[field.name] == nil { headers[field.name] = field.value }
        let response = try await client.executeRequest(uri: uri, method: method, headers: headers, body: body)
        for header in response.headers[values: .setCookie] {
            setCookieHeaders.append(header)
            let pair = header.split(separator: ";")[0]
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0]), value = parts.count > 1 ? String(parts[1]) : ""
            if header.lowercased().contains("max-age=0") || value.isEmpty { cookies[name] = nil } else { cookies[name] = value }
        }
        if response.headers[.contentType]?.hasPrefix("text/html") == true,
           let token = response.text.firstMatch(of: /<meta name="csrf-token" content="([^"]*)">/) {
            csrfToken = String(token.1)
        }
        return response
    }

    /// The last `Set-Cookie` header for `name`.
    func setCookieHeader(named name: String) -> String? {
        setCookieHeaders.last { $0.hasPrefix(name + "=") }
    }

    func setCookie(_ name: String, _ value: String?) {
        cookies[name] = value
    }

    // MARK: Account flows

    @discardableResult
    func signUp(email: String, nickname: String, password: String, confirmation: String? = nil,
                phone: String = "") async throws -> TestResponse {
        try await get("/signup")
        return try await post("/signup", [("email", email), ("nickname", nickname), ("phone", phone),
                                          ("password", password), ("password_confirm", confirmation ?? password)])
    }

    @discardableResult
    func logIn(email: String, password: String) async throws -> TestResponse {
        try await get("/login")
        return try await post("/login", [("email", email), ("password", password)])
    }

    static func encode(_ fields: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._*")
        return fields.map { name, value in
            let n = name.addingPercentEncoding(withAllowedCharacters: allowed) ?? name
            let v = value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
            return "\(n)=\(v)"
        }.joined(separator: "&")
    }
}

extension TestResponse {
    /// The body as UTF-8 text.
    var text: String { String(buffer: body) }

    /// The body without the `<template>`s kept for the page's scripts: what a reader sees.
    var shown: String { text.replacing(/<template id="tpl-[^"]*">.*?<\/template>/.dotMatchesNewlines(), with: "") }

    var location: String? { headers[.location] }
}

extension TestBrowser {
    /// A file for a multipart form.
    struct Upload {
        var field = "files"
        var filename: String
        var data: Data
        var contentType = "application/octet-stream"
        /// The whole `Content-Disposition` value, for tests of odd ones (else made from field and name).
        var disposition: String?
    }

    /// A multipart body: fields, then files. `textType` labels each text part (one app's
    /// builder says `text/plain`; browsers say nothing).
    static func multipartBody(_ fields: [(String, String)], files: [Upload], boundary: String, textType: String? = nil) -> Data {
        var body = Data()
        let label = textType.map { "\r\nContent-Type: \($0)" } ?? ""
        for (name, value) in fields {
            body += Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\(label)\r\n\r\n\(value)\r\n".utf8)
        }
        for file in files {
            let disposition = file.disposition ?? "form-data; name=\"\(file.field)\"; filename=\"\(file.filename)\""
            body += Data("--\(boundary)\r\nContent-Disposition: \(disposition)\r\nContent-Type: \(file.contentType)\r\n\r\n".utf8)
            body += file.data + Data("\r\n".utf8)
        }
        body += Data("--\(boundary)--\r\n".utf8)
        return body
    }

    /// Posts a multipart form as a browser would: the CSRF field first, then fields, then files.
    @discardableResult
    func postMultipart(_ uri: String, _ fields: [(String, String)] = [], files: [Upload] = [], csrf: CSRF = .fromLastPage,
                       headers: HTTPFields = [:]) async throws -> TestResponse {
        let boundary = "----wsxTest\(UUID().uuidString.prefix(8))"
        var allFields = fields
        switch csrf {
        case .fromLastPage:
            if csrfToken == nil { try await get("/login") }
            allFields.insert(("_csrf", csrfToken ?? ""), at: 0)
        case .value(let token): allFields.insert(("_csrf", token), at: 0)
        case .none: break
        }
        let body = Self.multipartBody(allFields, files: files, boundary: boundary)
        var headers = headers
        headers[.contentType] = "multipart/form-data; boundary=\(boundary)"
        return try await send(uri, method: .post, headers: headers, body: ByteBuffer(bytes: body))
    }
}

/// The committed fixture files in `Tests/Fixtures`.
enum Fixture {
    static func data(_ name: String) -> Data {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return (try? Data(contentsOf: url.appendingPathComponent("Fixtures/\(name)"))) ?? Data()
    }
}
