import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import PostgresNIO
import Testing
@testable import wsx_web

/// The whole server on PostgreSQL (`serve --database`): the same requests as on SQLite, answered
/// the same way.
@Suite("The server on PostgreSQL", .timeLimit(.minutes(5)))
struct PostgresAppTests {
    /// A test app on a new PostgreSQL database of the test cluster.
    static func app() async throws -> TestApp {
        var app = TestApp()
        app.postgresAddress = try await PostgresTestCluster.shared().database()
        return app
    }

    @Test("sign up, make a workspace and a channel, join it, post, and read the page")
    func channelFlow() async throws {
        try await Self.app().run { app in
            let (owner, member, wid) = try await ChannelTests.team(app)
            let cid = try await owner.createChannel(in: wid, " 공지채널 ", description: "Announcements")
            let directory = try await member.get("/w/\(wid)/channels")
            #expect(directory.text.contains(#"data-room-name="\#(cid)">공지채널</a>"#))
            try await member.post("/w/\(wid)/c/\(cid)/join")
            _ = try await MessagingTests.say(owner, "/w/\(wid)/c/\(cid)", "첫 소식 @Member")
            let page = try await member.get("/w/\(wid)/c/\(cid)")
            #expect(page.status == .ok)
            #expect(page.text.contains("첫 소식"))
            #expect(page.text.contains("2 members"))
            let search = try await member.get("/w/\(wid)/search?q=소식")
            #expect(search.text.contains("첫 <mark>소식</mark>"))
        }
    }

    @Test("serve --database: the binary migrates an empty database, serves, and /healthz says 503 once the database is gone")
    func serveBinary() async throws {
        let cluster = try await PostgresTestCluster.shared()
        let address = try await cluster.database()
        let folder = try makeEmptyFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = "postgres://\(address.user)@\(address.host):\(address.port)/\(address.database)"
        let (server, base) = try WSXBinary(path: WSXBinary.builtPath).serve(["--data-dir", "data", "--database", url], in: folder)
        defer { server.terminate() }
        #expect(try await fetch(base.appendingPathComponent("healthz")).status == 200)
        #expect(try await fetch(base.appendingPathComponent("login")).status == 200)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("data/wsx.sqlite").path),
                "no SQLite file beside a PostgreSQL database")

        try await PostgresConnector(address: cluster.address(database: "postgres"), logger: Logger(label: "test.postgres"))
            .withConnection { connection in
                _ = try await connection.query(PostgresQuery(unsafeSQL: "ALTER DATABASE \(address.database) ALLOW_CONNECTIONS false"),
                                               logger: Logger(label: "test.postgres")).collect()
                _ = try await connection.query(PostgresQuery(unsafeSQL: """
                    SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(address.database)'
                    """), logger: Logger(label: "test.postgres")).collect()
            }
        let unhealthy = await eventually(timeout: .seconds(10)) {
            (try? await fetch(base.appendingPathComponent("healthz")).status) == 503
        }
        #expect(unhealthy, "/healthz answers 503 while the database cannot be reached")
    }

    @Test("live: every member's stream gets each message once, in order, through reconnects; an outsider none")
    func liveDelivery() async throws {
        try await MessagingTests.liveDeliveryStorm(on: try await Self.app())
    }
}
