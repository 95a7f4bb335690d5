import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import wsx_web

/// A data folder on a disk that fills up: writes answer a clear 503 and keep nothing of
/// themselves, reads go on, and writes work again by themselves once there is room. The disk is
/// a small tmpfs mounted in the server's own mount namespace (`unshare -m`), so nothing stays
/// mounted when the test or the server ends, however they end.
@Suite("A full disk")
struct FullDiskTests {
    /// Whether this machine lets a process mount in a namespace of its own (root, unshare). Under
    /// CI the test runs regardless, so it can never be skipped there without failing.
    static let canMount: Bool = {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        probe.arguments = ["-m", "true"]
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }()

    /// Runs `command` inside the server's mount namespace, where its tmpfs is.
    static func inServerNamespace(_ pid: Int32, _ command: String) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/nsenter")
        process.arguments = ["-t", "\(pid)", "-m", "/bin/sh", "-c", command]
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
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
            exec '\(binary)' serve --port 0 --data-dir data --bcrypt-cost 4 --workspace-price 0
            """
        let running = try RunningServer.start("/usr/bin/unshare", ["-m", "/bin/sh", "-c", script], in: folder, within: 60)
        defer { running.stop() }
        // unshare and sh each become the next program in the same process: this is the server's.
        let process = running.process
        let server = running.base
        let cookie = try await signIn(base: server, email: "full@example.com", password: "full disk password")
        let page = try await Self.send(server, "/workspaces", cookie: cookie)
        let token = String(try #require(page.body.firstMatch(of: /name="csrf-token" content="([^"]+)"/)).1)

        // Fill the disk to the last byte (cat stops with "no space left").
        #expect(try Self.inServerNamespace(process.processIdentifier, "cat /dev/zero > '\(data.path)/filler'") != 0)
        let refused = try await Self.send(server, "/workspaces", cookie: cookie,
                                          form: [("_csrf", token), ("name", "가득 찬 디스크"), ("description", "")])
        #expect(refused.status == 503)
        #expect(refused.headers["retry-after"] == "30")
        #expect(refused.body.contains("The server cannot save anything right now: its disk is full or cannot be written. Nothing was saved."))
        // Reading goes on.
        let reading = try await Self.send(server, "/workspaces", cookie: cookie)
        #expect(reading.status == 200 && !reading.body.contains("가득 찬 디스크"))
        #expect(try await fetch(server.appendingPathComponent("healthz")).status == 200)

        // Room again: the same form works, with nothing left over from the refused try.
        #expect(try Self.inServerNamespace(process.processIdentifier, "rm '\(data.path)/filler'") == 0)
        let created = try await Self.send(server, "/workspaces", cookie: cookie,
                                          form: [("_csrf", token), ("name", "가득 찬 디스크"), ("description", "")])
        #expect(created.status == 303, "\(created.body.prefix(300))")
        let after = try await Self.send(server, "/workspaces", cookie: cookie)
        // One workspace, made once: the refused try left no half of one behind.
        let workspaces = Set(after.body.matches(of: /href="\/w\/([0-9]+)/).map { String($0.1) })
        #expect(workspaces.count == 1 && after.body.contains("가득 찬 디스크"), "\(workspaces)")
        #expect(process.isRunning)
        #expect(running.log.contains("disk is full or cannot be written"))
    }
}
