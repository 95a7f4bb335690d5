import Foundation
import Synchronization
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
        let child = try ChildProcess(path, arguments, in: directory,
                                     environment: ProcessInfo.processInfo.environment.merging(environment) { $1 }, errors: .separate)
        let status = child.waitUntilExit()
        return (status, child.output, child.errorOutput)
    }

    /// Runs the built binary to its end, stdout and stderr together, without holding a thread of
    /// the cooperative pool (which an in-process server beside it answers on).
    static func runBeside(_ arguments: [String], in folder: URL) async throws -> (status: Int32, output: String) {
        let child = try ChildProcess(WSXBinary.builtPath, arguments, in: folder)
        let status = await child.exitStatus()
        return (status, child.output)
    }

    /// Creates an account in `folder`'s `data` with the `user create` command, as an operator
    /// would before starting the server; fails the caller when the command does.
    func createAccount(email: String, password: String, in folder: URL) throws {
        let created = try run(["user", "create", "--data-dir", "data", "--email", email, "--nickname", "Operator",
                               "--password", password], in: folder)
        guard created.status == 0 else { throw AccountNotCreated(stderr: created.stderr) }
    }

    struct AccountNotCreated: Error {
        let stderr: String
    }

    /// Starts `serve --port 0` and waits for its "listening on" line; returns the process and base URL.
    func serve(_ arguments: [String], in directory: URL) throws -> (ChildProcess, URL) {
        let child = try ChildProcess(path, ["serve", "--port", "0"] + arguments, in: directory, errors: .discarded)
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, child.isRunning {
            if let match = child.output.firstMatch(of: /listening on (http:\/\/[0-9.]+:[0-9]+)/) {
                return (child, URL(string: String(match.1))!)
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        child.terminate()
        throw ServerStartError(output: child.output)
    }
}

struct ServerStartError: Error {
    let output: String
}

/// Refuses every redirect, so tests see the 303s themselves.
final class NoRedirects: NSObject, URLSessionTaskDelegate {
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
    // A session of its own: the shared one keeps cookies by host, not port, and another test's
    // server on 127.0.0.1 would lend it theirs.
    let session = URLSession(configuration: .ephemeral)
    defer { session.finishTasksAndInvalidate() }
    var request = URLRequest(url: base.appendingPathComponent("login"))
    let (page, pageResponse) = try await session.data(for: request)
    let html = String(decoding: page, as: UTF8.self)
    let pageCookie = (pageResponse as? HTTPURLResponse)?.value(forHTTPHeaderField: "Set-Cookie") ?? ""
    let csrfCookie = try #require(pageCookie.split(separator: ";").first,
                                  "the login page set no cookie: \((pageResponse as? HTTPURLResponse)?.statusCode ?? 0) \(html.prefix(200))")
    let token = String(try #require(html.firstMatch(of: /name="csrf-token" content="([^"]+)"/)).1)
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

/// A server process whose output is read as it comes (so a chatty log never fills the pipe and
/// stalls it), for tests that load it and read what it logged.
final class RunningServer: @unchecked Sendable {
    let process: ChildProcess
    let base: URL

    fileprivate init(process: ChildProcess, base: URL) {
        self.process = process
        self.base = base
    }

    /// Everything it wrote to stdout and stderr so far.
    var log: String { process.output }

    var port: Int { base.port! }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}

extension WSXBinary {
    /// Starts `serve --port 0` (under `prlimit --nofile=N:N` when `openFiles` is given, so the
    /// server cannot raise its limit) and waits for its "listening on" line.
    func serveLogged(_ arguments: [String], in directory: URL, openFiles: Int? = nil) throws -> RunningServer {
        if let openFiles {
            return try RunningServer.start("/usr/bin/prlimit", ["--nofile=\(openFiles):\(openFiles)", path, "serve", "--port", "0"] + arguments,
                                           in: directory)
        }
        return try RunningServer.start(path, ["serve", "--port", "0"] + arguments, in: directory)
    }
}

extension RunningServer {
    /// Runs `executable` (which runs the server in the end, perhaps through a wrapper such as
    /// `prlimit` or `unshare`), collecting its output, and waits for the "listening on" line.
    static func start(_ executable: String, _ arguments: [String], in directory: URL,
                      within seconds: TimeInterval = 30) throws -> RunningServer {
        let child = try ChildProcess(executable, arguments, in: directory)
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline, child.isRunning {
            if let match = child.output.firstMatch(of: /listening on (http:\/\/[0-9.]+:[0-9]+)/) {
                return RunningServer(process: child, base: URL(string: String(match.1))!)
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        child.terminate()
        throw ServerStartError(output: child.output)
    }
}

/// Text a process writes, collected as it arrives.
final class LogBuffer: Sendable {
    let text = Mutex("")
}
