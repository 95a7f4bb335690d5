import Foundation
import NIOCore
import Testing
@testable import wsx_web

/// Class: descriptor exhaustion, against the binary as an operator runs it, with a small
/// open-file limit (`prlimit`) so a test can reach it: floods of half-open connections from
/// several addresses, an account opening stream after stream, and connections past the limit
/// itself. `/healthz` keeps answering, the process never dies, and it serves normally after.
@Suite("Connection floods against the binary", .serialized, .timeLimit(.minutes(5)))
struct ConnectionFloodTests {
    /// Opens `count` connections from `address`, each sending half a request head.
    static func flood(_ port: Int, from address: String, count: Int) async -> [RawClient] {
        var clients: [RawClient] = []
        for _ in 0..<count {
            guard let client = try? await RawClient.connect(port: port, from: address) else { continue }
            try? await client.send("GET /w/1 HTTP/1.1\r\nHost: wsx\r\nX-Half: ")
            clients.append(client)
        }
        return clients
    }

    /// `/healthz` from a fresh connection and address: seconds until it answered, nil when it did not within `limit`.
    /// A try keeps its place: a connection made anew goes to the back of the listen backlog,
    /// behind the flood, so giving up on one after a few seconds and connecting again (as this
    /// did once) could keep a loaded machine's answer out of reach for good. A new try is made
    /// only when the last one was closed or refused without an answer.
    static func healthCheck(_ port: Int, from address: String, limit: Duration = .seconds(15)) async -> Duration? {
        let started = ContinuousClock.now
        while ContinuousClock.now - started < limit {
            guard let client = try? await RawClient.askingHealth(port: port, from: address) else {
                try? await Task.sleep(for: .milliseconds(200))
                continue
            }
            while ContinuousClock.now - started < limit, client.channel.isActive, !client.received.contains("ok\n") {
                try? await Task.sleep(for: .milliseconds(20))
            }
            let answered = client.received.contains("ok\n")
            await client.close()
            if answered { return ContinuousClock.now - started }
        }
        return nil
    }

    static func openDescriptors(_ process: ChildProcess) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.processIdentifier)/fd").count) ?? -1
    }

    @Test("256 descriptors: 600 half-open connections from two addresses and 30 streams of one account; /healthz answers throughout")
    func floodsWithinTheCaps() async throws {
        let folder = try makeEmptyFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let binary = WSXBinary(path: WSXBinary.builtPath)
        try binary.createAccount(email: "f@example.com", password: "flood password", in: folder)
        // A head timeout long enough that each address's 50 are held at once even when the
        // suites running beside this one leave the server little CPU to accept with (at 2 s,
        // a starved server let every held one time out before the 51st arrived: no 503 at all).
        let server = try binary.serveLogged(["--data-dir", "data", "--bcrypt-cost", "4", "--request-head-timeout", "10",
                                             "--max-connections-per-address", "50"], in: folder, openFiles: 256)
        defer { server.stop() }
        #expect(server.log.contains("max=128 per_address=50"))
        let port = server.port

        async let first = Self.flood(port, from: "127.0.0.2", count: 300)
        async let second = Self.flood(port, from: "127.0.0.3", count: 300)
        // Up to 90 s: in a clean clone's CI run (the whole suite beside it on two cores) 15 s
        // was once not enough to get a fresh connection through the flooded backlog, 25 s once
        // not enough with the link preview and group suites added beside it, and 40 s once not
        // with the backup, metrics and full-disk suites. What is checked is that it answers at
        // all while the flood lasts (a server that stopped accepting never would), not how fast.
        let during = await Self.healthCheck(port, from: "127.0.0.1", limit: .seconds(90))
        let attackers = await first + second
        #expect(during != nil, "/healthz did not answer during the flood")
        // Each attacker is answered and closed: a 503 over its address's share (at once, or
        // once the server-wide cap lets it in), a 408 at the head timeout for the ones held.
        for client in attackers { _ = await client.closed(within: .seconds(20)) }
        #expect(attackers.allSatisfy { !$0.channel.isActive })
        let refused = attackers.filter { $0.received.hasPrefix("HTTP/1.1 503") }.count
        let timedOut = attackers.filter { $0.received.hasPrefix("HTTP/1.1 408") }.count
        #expect(refused + timedOut == attackers.count)
        // How many of each depends on timing (a held one timing out frees a slot for one waiting).
        #expect(timedOut >= 100 && refused >= 1, "408: \(timedOut), 503: \(refused)")
        #expect(Self.openDescriptors(server.process) < 256)

        // One account opening stream after stream keeps its newest 20.
        let cookie = try await signIn(base: server.base, email: "f@example.com", password: "flood password")
        var streams: [RawClient] = []
        for _ in 0..<30 {
            streams.append(try #require(try await RawClient.eventStream(port: port, cookie: cookie)))
        }
        for stream in streams.prefix(10) { #expect(await stream.closed(within: .seconds(2))) }
        #expect(streams.suffix(20).allSatisfy { $0.channel.isActive })
        #expect(await Self.healthCheck(port, from: "127.0.0.4") != nil)
        for stream in streams { await stream.close() }

        #expect(server.process.isRunning)
        #expect(!server.log.contains(" error "), "error lines in the log:\n\(server.log.split(separator: "\n").filter { $0.contains(" error ") }.prefix(5).joined(separator: "\n"))")
    }

    @Test("a connection cap above the descriptor limit: accept fails for lack of descriptors, the server lives and recovers")
    func acceptFailsForLackOfDescriptors() async throws {
        let folder = try makeEmptyFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let binary = WSXBinary(path: WSXBinary.builtPath)
        let server = try binary.serveLogged(["--data-dir", "data", "--request-head-timeout", "5", "--max-connections", "5000",
                                             "--max-connections-per-address", "5000"], in: folder, openFiles: 200)
        defer { server.stop() }
        let port = server.port
        // More than the process can hold: accepting fails with EMFILE until some close. The
        // most descriptors it held at once shows it really ran out.
        let process = server.process
        let peak = Task {
            var most = 0
            while !Task.isCancelled {
                most = max(most, Self.openDescriptors(process))
                try? await Task.sleep(for: .milliseconds(5))
            }
            return most
        }
        async let first = Self.flood(port, from: "127.0.0.2", count: 300)
        async let second = Self.flood(port, from: "127.0.0.3", count: 300)
        let attackers = await first + second
        try await Task.sleep(for: .milliseconds(200))
        peak.cancel()
        #expect(await peak.value >= 195)
        #expect(server.process.isRunning)
        // Once the held connections time out, the waiting ones are taken in turn, and /healthz
        // from a newcomer gets through.
        #expect(await Self.healthCheck(port, from: "127.0.0.1", limit: .seconds(20)) != nil)
        for client in attackers { await client.close() }
        #expect(await Self.healthCheck(port, from: "127.0.0.1") != nil)
        let login = try await fetch(server.base.appendingPathComponent("login"))
        #expect(login.status == 200)
        #expect(server.process.isRunning)
    }

    /// The server's resident memory, from `/proc`.
    static func residentKilobytes(_ process: ChildProcess) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return nil }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])
    }

    /// One of each way a connection ends: the client closes after an answer, the server closes
    /// after `Connection: close`, the client gives up mid-head, mid-body, and on an open stream.
    static func connectionsEndingEveryWay(_ port: Int, cookie: String) async throws {
        let answered = try await RawClient.askingHealth(port: port)
        _ = await answered.waitFor("ok\n", within: .seconds(2))
        await answered.close()
        let closing = try await RawClient.connect(port: port)
        try await closing.send("GET /healthz HTTP/1.1\r\nHost: wsx\r\nConnection: close\r\n\r\n")
        _ = await closing.closed(within: .seconds(2))
        let halfHead = try await RawClient.connect(port: port)
        try await halfHead.send("GET /healthz HTTP/1.1\r\nHo")
        await halfHead.close()
        let halfBody = try await RawClient.connect(port: port)
        try await halfBody.send("POST /login HTTP/1.1\r\nHost: wsx\r\nContent-Length: 100\r\n\r\nemail=")
        await halfBody.close()
        if let stream = try await RawClient.eventStream(port: port, cookie: cookie) { await stream.close() }
    }

    @Test("a closed connection gives its memory back, however it ended: 12,000 connections leave the server's size where it was")
    func closedConnectionsAreFreed() async throws {
        let folder = try makeEmptyFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let binary = WSXBinary(path: WSXBinary.builtPath)
        try binary.createAccount(email: "m@example.com", password: "memory password", in: folder)
        let server = try binary.serveLogged(["--data-dir", "data", "--bcrypt-cost", "4"], in: folder)
        defer { server.stop() }
        let port = server.port
        let cookie = try await signIn(base: server.base, email: "m@example.com", password: "memory password")
        // Warm-up: caches, allocator pools and the event loops' buffers reach their working size.
        for _ in 0..<200 { try await Self.connectionsEndingEveryWay(port, cookie: cookie) }
        try await Task.sleep(for: .milliseconds(500))
        let before = try #require(Self.residentKilobytes(server.process))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask { for _ in 0..<600 { try await Self.connectionsEndingEveryWay(port, cookie: cookie) } }
            }
            try await group.waitForAll()
        }
        try await Task.sleep(for: .milliseconds(500))
        let after = try #require(Self.residentKilobytes(server.process))
        // A connection that outlived its close held about 900 bytes: 12,000 of them would be
        // 10 MB. What is left is the allocator's noise.
        #expect(after - before < 3_000, "grew by \(after - before) KB over 12,000 connections")
        #expect(server.process.isRunning)
    }
}
