import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The built `wsx-web` binary run as a separate process, as an operator would run it.
struct WSXBinary {
    /// `.build/debug/wsx-web` of this package (built by `swift build --build-tests`).
    static var builtPath: String {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { root.deleteLastPathComponent() }
        return root.appendingPathComponent(".build/debug/wsx-web").path
    }

    let path: String

    /// Runs a command to completion and returns its exit status and output.
    func run(_ arguments: [String], in directory: URL, environment: [String: String] = [:]) throws
        -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
    }

    /// Starts `serve --port 0` and waits for its "listening on" line; returns the process and base URL.
    func serve(_ arguments: [String], in directory: URL) throws -> (Process, URL) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["serve", "--port", "0"] + arguments
        process.currentDirectoryURL = directory
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        var buffer = Data()
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
            let text = String(decoding: buffer, as: UTF8.self)
            if let match = text.firstMatch(of: /listening on (http:\/\/[0-9.]+:[0-9]+)/) {
                return (process, URL(string: String(match.1))!)
            }
        }
        process.terminate()
        throw ServerStartError(output: String(decoding: buffer, as: UTF8.self))
    }
}

struct ServerStartError: Error {
    let output: String
}

/// Refuses every redirect, so tests see the 303s themselves.
private final class NoRedirects: NSObject, URLSessionTaskDelegate {
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        completionHandler(nil)
    }
}

/// Sends `request` without following redirects.
private func dataWithoutRedirects(for request: URLRequest) async throws -> (Data, HTTPURLResponse) {
    let session = URLSession(configuration: .ephemeral, delegate: NoRedirects(), delegateQueue: nil)
    defer { session.finishTasksAndInvalidate() }
    let (data, response) = try await session.data(for: request)
    return (data, response as! HTTPURLResponse)
}

/// A plain GET that does not follow redirects.
func fetch(_ url: URL) async throws -> (status: Int, body: String, headers: [String: String]) {
    let (data, http) = try await dataWithoutRedirects(for: URLRequest(url: url))
    var headers: [String: String] = [:]
    for (key, value) in http.allHeaderFields { headers[String(describing: key).lowercased()] = String(describing: value) }
    return (http.statusCode, String(decoding: data, as: UTF8.self), headers)
}

/// Signs in over HTTP as a browser would (login form with its CSRF token); returns the Cookie header.
func signIn(base: URL, email: String, password: String) async throws -> String {
    var request = URLRequest(url: base.appendingPathComponent("login"))
    let (page, pageResponse) = try await URLSession.shared.data(for: request)
    let csrfCookie = ((pageResponse as! HTTPURLResponse).value(forHTTPHeaderField: "Set-Cookie") ?? "")
        .split(separator: ";")[0]
    let html = String(decoding: page, as: UTF8.self)
    let token = String(html.firstMatch(of: /name="csrf-token" content="([^"]+)"/)!.1)
    request = URLRequest(url: base.appendingPathComponent("login"))
    request.httpMethod = "POST"
    request.setValue(String(csrfCookie), forHTTPHeaderField: "Cookie")
    request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
    let form = ["_csrf": token, "email": email, "password": password]
        .map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)" }
        .joined(separator: "&")
    request.httpBody = Data(form.utf8)
    let (_, response) = try await dataWithoutRedirects(for: request)
    let setCookie = response.value(forHTTPHeaderField: "Set-Cookie") ?? ""
    let sessionCookie = try #require(setCookie.firstMatch(of: /wsx_session=[A-Za-z0-9_-]+/)?.0)
    return String(sessionCookie)
}

/// A fresh empty folder under the temporary directory.
func makeEmptyFolder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wsx-bin-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}
