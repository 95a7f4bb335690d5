import ArgumentParser
import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import NIOCore
import Synchronization
import Testing
@testable import wsx_web

/// `GET /metrics` after real traffic, who may read it, and JSON log lines that carry their
/// request's id.
@Suite("Metrics and logs", .timeLimit(.minutes(5)))
struct MetricsTests {
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    /// The value of the sample line that starts with `series ` (name and labels exactly).
    static func value(_ text: String, _ series: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(series + " ") }.flatMap { Double($0.split(separator: " ").last!) }
    }

    @Test("after some traffic: requests by route template and status with latency, posts, open streams, events, write time, outbox lag")
    func afterTraffic() async throws {
        try await TestApp().run(.live) { app in
            let (a, b, wid, general) = try await MessagingTests.team(app)
            let path = "/w/\(wid)/c/\(general)"
            let bob = try await app.userId("b@example.com")
            var scraped = ""
            try await EventStreamClient.connect(port: app.client.port!, headers: ["Cookie": b.cookieHeader]) { reader in
                _ = try await reader.readHead()
                for _ in 0..<200 where await !app.services.hub.onlineMembers(ofRoom: general).contains(bob) {
                    try await Task.sleep(for: .milliseconds(10))
                }
                for text in ["하나", "둘", "셋"] { #expect(try await MessagingTests.say(a, path, text).status == .seeOther) }
                var seen = 0
                while seen < 3, let event = try await reader.next() {
                    if event.type == "message.created" { seen += 1 }
                }
                let response = try await app.client.execute(uri: "/metrics", method: .get)
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/plain; version=0.0.4; charset=utf-8")
                scraped = String(buffer: response.body)
            }
            let posts = #"wsx_http_requests_total{route="/w/{wid}/c/{cid}/messages",method="POST",status="303"}"#
            #expect(Self.value(scraped, posts) == 3)
            #expect(Self.value(scraped, #"wsx_http_requests_total{route="/w/{wid}/c/{cid}",method="GET",status="200"}"#) ?? 0 >= 3)
            #expect(scraped.contains(#"wsx_http_request_duration_seconds_bucket{route="/w/{wid}/c/{cid}/messages",method="POST",status="303",le="+Inf"} 3"#))
            #expect(scraped.contains("# HELP wsx_http_requests_total HTTP requests answered, by route template, method and status."))
            #expect(Self.value(scraped, "wsx_posts_total") == 3)
            #expect(Self.value(scraped, "wsx_event_streams_open") == 1)
            #expect(Self.value(scraped, "wsx_events_delivered_total") ?? 0 >= 3)
            #expect(Self.value(scraped, "wsx_events_dropped_total") == 0)
            #expect(Self.value(scraped, "wsx_outbox_lag_events") == 0)
            #expect(Self.value(scraped, "wsx_database_write_seconds_count") ?? 0 >= 3)
            // Templates only: no address with a real id (or a token) in it.
            #expect(!scraped.contains("/w/\(wid)/"))
        }
    }

    @Test("who may read it: loopback without a proxy, or the bearer token; everyone else a 404 (401 for a wrong token)")
    func access() async throws {
        try await TestApp().run(.live) { app in
            let local = try await app.client.execute(uri: "/metrics", method: .get)
            #expect(local.status == .ok)
            // Through a proxy, even one on this machine: not for the public.
            let proxied = try await app.client.execute(uri: "/metrics", method: .get, headers: [Self.forwardedFor: "203.0.113.9"])
            #expect(proxied.status == .notFound)
        }
        try await TestApp().run(.router) { app in
            // No peer address at all: nothing to trust.
            let anonymous = try await app.client.execute(uri: "/metrics", method: .get)
            #expect(anonymous.status == .notFound)
        }
        try await TestApp { $0.metricsToken = "scrape-secret-123" }.run(.router) { app in
            let wrong = try await app.client.execute(uri: "/metrics", method: .get, headers: [.authorization: "Bearer nope"])
            #expect(wrong.status == .unauthorized && wrong.headers[.wwwAuthenticate] == "Bearer")
            let right = try await app.client.execute(uri: "/metrics", method: .get,
                                                     headers: [.authorization: "Bearer scrape-secret-123", Self.forwardedFor: "203.0.113.9"])
            #expect(right.status == .ok && String(buffer: right.body).contains("# TYPE wsx_posts_total counter"))
        }
    }

    @Test("process_* series, the build, mail given up on; `bearer` in any case; any proxy's forwarding header is a proxy")
    func processBuildAndProxies() async throws {
        try await TestApp().run(.live) { app in
            let text = String(buffer: try await app.client.execute(uri: "/metrics", method: .get).body)
            #expect(Self.value(text, "process_resident_memory_bytes") ?? 0 > 1_000_000)
            #expect(Self.value(text, "process_open_fds") ?? 0 > 3)
            #expect(Self.value(text, "process_max_fds") ?? 0 >= Self.value(text, "process_open_fds") ?? .infinity)
            #expect(Self.value(text, "process_cpu_seconds_total") ?? 0 > 0)
            let started = try #require(Self.value(text, "process_start_time_seconds"))
            #expect(abs(started - Date().timeIntervalSince1970) < 24 * 3600)
            #expect(text.contains("# TYPE process_cpu_seconds_total counter"))
            #expect(Self.value(text, #"wsx_build_info{version="\#(BuildInfo.version)",swift="\#(BuildInfo.swift)"}"#) == 1)
            #expect(Self.value(text, "wsx_mail_failed_messages") == 0)
            #expect(Self.value(text, "wsx_mail_attempts_failed_total") == 0)
            // A local proxy that names its client in any of the usual headers is still a proxy.
            for header in ["X-Real-IP", "Forwarded", "CF-Connecting-IP", "True-Client-IP"] {
                let proxied = try await app.client.execute(uri: "/metrics", method: .get, headers: [HTTPField.Name(header)!: "203.0.113.9"])
                #expect(proxied.status == .notFound, "\(header)")
            }
        }
        try await TestApp { $0.metricsToken = "scrape-secret-123" }.run(.router) { app in
            for scheme in ["bearer", "BEARER", "Bearer"] {
                let right = try await app.client.execute(uri: "/metrics", method: .get,
                                                         headers: [.authorization: "\(scheme) scrape-secret-123"])
                #expect(right.status == .ok, "\(scheme)")
            }
        }
    }

    @Test("request log lines carry the client's address: the peer, or the forwarded one only with --trust-proxy")
    func clientAddressInRequestLines() async throws {
        for trusted in [false, true] {
            try await TestApp { $0.trustProxy = trusted }.run(.live) { app in
                _ = try await app.client.execute(uri: "/login", method: .get, headers: [Self.forwardedFor: "198.51.100.7"])
                let line = try #require(app.logs.all.last { $0.contains("route=/login") })
                #expect(line.contains(trusted ? "client=198.51.100.7" : "client=127.0.0.1"), "\(line)")
            }
        }
    }

    @Test("serve --log-format json: every line it prints is a JSON object, the listening line too")
    func jsonServeOutput() async throws {
        let folder = try makeEmptyFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try WSXBinary(path: WSXBinary.builtPath).serveLogged(["--data-dir", "data", "--log-format", "json"], in: folder)
        _ = try await fetch(server.base.appendingPathComponent("login"))
        server.stop()
        let lines = server.log.split(separator: "\n").filter { !$0.isEmpty }
        #expect(lines.count >= 3)
        for line in lines {
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] != nil, "not JSON: \(line)")
        }
        #expect(lines.contains { $0.contains(#""message":"wsx-web listening on http://127.0.0.1:"#) })
        #expect(lines.contains { $0.contains(#""route":"/login""#) && $0.contains(#""client":"127.0.0.1""#) })
    }

    @Test("--log-format json: one JSON object per line, a request's lines carrying its id as request_id")
    func jsonLogs() throws {
        let lines = Mutex<[String]>([])
        var logger = Logger(label: "wsx-web") { label in JSONLogHandler(label: label) { line in lines.withLock { $0.append(line) } } }
        logger[metadataKey: "hb.request.id"] = "f00d-1"
        logger.info("request", metadata: ["route": "/w/{wid}", "status": .stringConvertible(200)])
        let line = try #require(lines.withLock { $0.first })
        #expect(!line.contains("\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["request_id"] as? String == "f00d-1")
        #expect(object["message"] as? String == "request" && object["level"] as? String == "info")
        #expect(object["route"] as? String == "/w/{wid}" && object["status"] as? String == "200")
        #expect((object["time"] as? String)?.hasSuffix("Z") == true)
        let config = try ServeCommand.parse(["--log-format", "json", "--metrics-token", "t0ken-for-scrapers"]).resolvedConfig(environment: .init(values: [:]))
        #expect(config.logFormat == .json && config.metricsToken == "t0ken-for-scrapers")
        #expect(throws: (any Error).self) { try ServeCommand.parse(["--log-format", "xml"]).resolvedConfig(environment: .init(values: [:])) }
    }
}
