import Foundation
import NIOCore
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import wsx_web

/// A data folder on a disk that fills up: writes and uploads answer a clear 503 and keep nothing
/// of themselves, `/healthz` says why, reads go on, and writes work again by themselves once
/// there is room. The disk is
/// a small tmpfs mounted in the server's own mount namespace (`unshare -m`), so nothing stays
/// mounted when the test or the server ends, however they end.
@Suite("A full disk", .timeLimit(.minutes(5)))
struct FullDiskTests {
    /// Whether this machine lets a process mount in a namespace of its own (root, unshare). Under
    /// CI the test runs regardless, so it can never be skipped there without failing.
    static let canMount: Bool = {
        guard let probe = try? ChildProcess("/usr/bin/unshare", ["-m", "true"], errors: .discarded) else { return false }
        return probe.waitUntilExit() == 0
    }()

    /// Runs `command` inside the server's mount namespace, where its tmpfs is.
    static func inServerNamespace(_ pid: Int32, _ command: String) throws -> Int32 {
        try ChildProcess("/usr/bin/nsenter", ["-t", "\(pid)", "-m", "/bin/sh", "-c", command], errors: .discarded).waitUntilExit()
    }

    /// One request without following redirects: status, body and headers.
    static func send(_ base: URL, _ path: String, cookie: String, form: [(String, String)]? = nil) async throws
        -> (status: Int, body: String, headers: [String: String]) {
        var request = URLRequest(url: URL(string: path, relativeTo: base)!)
        request.setValue(cookie, forHTTPHeaderField: "Cookie")
        if let form {
            request.httpMethod = "POST"
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(TestBrowser.encode(form).utf8)
        }
        let session = URLSession(configuration: .ephemeral, delegate: NoRedirects(), delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await session.data(for: request)
        let http = response as! HTTPURLResponse
        var headers: [String: String] = [:]
        for (key, value) in http.allHeaderFields { headers[String(describing: key).lowercased()] = String(describing: value) }
        return (http.statusCode, String(decoding: data, as: UTF8.self), headers)
    }

    /// Posts `file` as a message's attachment over a bare connection (chunked: no length up
    /// front, so the server finds out while writing); answers what the server sent.
    static func upload(_ base: URL, _ path: String, cookie: String, token: String, file: Data, chunked: Bool) async throws -> String {
        let boundary = "wsxFullDisk"
        var body = Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"_csrf\"\r\n\r\n\(token)\r\n".utf8)
        body += Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"files\"; filename=\"보고서.pdf\"\r\nContent-Type: application/pdf\r\n\r\n".utf8)
        body += file + Data("\r\n--\(boundary)--\r\n".utf8)
        let client = try await RawClient.connect(port: base.port!)
        defer { Task { await client.close() } }
        var head = "POST \(path) HTTP/1.1\r\nHost: wsx\r\nCookie: \(cookie)\r\nConnection: close\r\n"
        head += "Content-Type: multipart/form-data; boundary=\(boundary)\r\n"
        head += chunked ? "Transfer-Encoding: chunked\r\n\r\n" : "Content-Length: \(body.count)\r\n\r\n"
        var buffer = ByteBuffer(string: head)
        if chunked {
            buffer.writeString(String(body.count, radix: 16) + "\r\n")
            buffer.writeBytes(body)
            buffer.writeString("\r\n0\r\n\r\n")
        } else {
            buffer.writeBytes(body)
        }
        try? await client.channel.writeAndFlush(buffer).get()
        _ = await client.closed(within: .seconds(20))
        return client.received
    }

    @Test("writes get a 503 and keep nothing, reads go on, and the server recovers when space returns",
          .enabled(if: canMount || ProcessInfo.processInfo.environment["CI"] != nil))
    func fullDisk() async throws {
        let folder = try makeEmptyFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = folder.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let binary = WSXBinary.builtPath
        let script = """
            set -e
            mount -t tmpfs -o size=16m,mode=0700 tmpfs data
            '\(binary)' user create --data-dir data --email full@example.com --nickname Full --password 'full disk password' > /dev/null
            exec '\(binary)' serve --port 0 --data-dir data --bcrypt-cost 4 --workspace-price 0 --min-free-space 1MB
            """
        let running = try RunningServer.start("/usr/bin/unshare", ["-m", "/bin/sh", "-c", script], in: folder, within: 60)
        defer { running.stop() }
        // unshare and sh each become the next program in the same process: this is the server's.
        let process = running.process
        let server = running.base
        let cookie = try await signIn(base: server, email: "full@example.com", password: "full disk password")
        let page = try await Self.send(server, "/workspaces", cookie: cookie)
        let token = String(try #require(page.body.firstMatch(of: /name="csrf-token" content="([^"]+)"/)).1)
        #expect(try await fetch(server.appendingPathComponent("healthz")).body == "ok\n")
        let made = try await Self.send(server, "/workspaces", cookie: cookie, form: [("_csrf", token), ("name", "업로드"), ("description", "")])
        let upload = try #require(made.headers["location"]) + "/c/" + "1/messages"
        let pdf = Data("%PDF-1.4\n".utf8) + Data(repeating: 0x20, count: 4 << 20)

        // 2 MB left, more than the 1 MB kept: healthy, but a 4 MB upload without a length runs
        // out of room half-way. 503, and no half of it stays behind.
        #expect(try Self.inServerNamespace(process.processIdentifier,
                                           "cat /dev/zero > '\(data.path)/filler'; truncate -s -2M '\(data.path)/filler'") == 0)
        #expect(try await fetch(server.appendingPathComponent("healthz")).status == 200)
        let chunked = try await Self.upload(server, upload, cookie: cookie, token: token, file: pdf, chunked: true)
        #expect(chunked.hasPrefix("HTTP/1.1 503"), "\(chunked.prefix(300))")
        #expect(chunked.contains("its disk is full or cannot be written"))
        #expect(try Self.inServerNamespace(process.processIdentifier, "[ -z \"$(ls -A '\(data.path)/tmp')\" ]") == 0)

        // Fill the disk to the last byte (cat stops with "no space left").
        #expect(try Self.inServerNamespace(process.processIdentifier, "cat /dev/zero >> '\(data.path)/filler'") != 0)
        // Health says so (it used to answer ok here), and an upload with its length is refused before a byte is kept.
        try await Task.sleep(for: .milliseconds(1100))
        let health = try await fetch(server.appendingPathComponent("healthz"))
        #expect(health.status == 503 && health.body.hasPrefix("the data folder's disk has 0 KB free, less than --min-free-space (1 MB)"),
                "\(health.body)")
        let sized = try await Self.upload(server, upload, cookie: cookie, token: token, file: Data("%PDF-1.4\n작은 파일".utf8), chunked: false)
        #expect(sized.hasPrefix("HTTP/1.1 503") && sized.contains("its disk is full or cannot be written"), "\(sized.prefix(300))")
        #expect(try Self.inServerNamespace(process.processIdentifier, "[ -z \"$(ls -A '\(data.path)/tmp')\" ]") == 0)
        let refused = try await Self.send(server, "/workspaces", cookie: cookie,
                                          form: [("_csrf", token), ("name", "가득 찬 디스크"), ("description", "")])
        #expect(refused.status == 503)
        #expect(refused.headers["retry-after"] == "30")
        #expect(refused.body.contains("The server cannot save anything right now: its disk is full or cannot be written. Nothing was saved."))
        // Reading goes on.
        let reading = try await Self.send(server, "/workspaces", cookie: cookie)
        #expect(reading.status == 200 && !reading.body.contains("가득 찬 디스크"))

        // Room again: the same form works, with nothing left over from the refused try.
        #expect(try Self.inServerNamespace(process.processIdentifier, "rm '\(data.path)/filler'") == 0)
        try await Task.sleep(for: .milliseconds(1100))
        #expect(try await fetch(server.appendingPathComponent("healthz")).body == "ok\n")
        let uploaded = try await Self.upload(server, upload, cookie: cookie, token: token, file: pdf, chunked: true)
        #expect(uploaded.hasPrefix("HTTP/1.1 303"), "\(uploaded.prefix(300))")
        let created = try await Self.send(server, "/workspaces", cookie: cookie,
                                          form: [("_csrf", token), ("name", "가득 찬 디스크"), ("description", "")])
        #expect(created.status == 303, "\(created.body.prefix(300))")
        let after = try await Self.send(server, "/workspaces", cookie: cookie)
        // One workspace, made once: the refused try left no half of one behind.
        let workspaces = Set(after.body.matches(of: /href="\/w\/([0-9]+)/).map { String($0.1) })
        #expect(workspaces.count == 2 && after.body.contains("가득 찬 디스크"), "\(workspaces)")
        #expect(process.isRunning)
        #expect(running.log.contains("disk is full or cannot be written"))
    }
}
