import Foundation
import GRDB
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import wsx_web

/// SQLite's own: commands write the embedded file and queue their events in `outside_events`.
/// Commands an operator runs beside the server (`wsx-web coins grant`) on its data folder: what
/// they change reaches the people it concerns as it would from the server itself, live on their
/// open pages, with an id in the server's one stream; and what they change while no server runs
/// is there, and replayed, when it starts.
@Suite("Commands beside a running server", .timeLimit(.minutes(5)))
struct OutsideCommandTests {
    /// Reads `stream` up to the sentinel note (published after whatever the test waits for, so
    /// a missing event fails the test instead of hanging it); answers the events before it.
    static func events(before sentinel: String, in stream: inout EventStreamClient.Reader) async throws -> [ReceivedEvent] {
        var seen: [ReceivedEvent] = []
        while let event = try await stream.next() {
            if event.data.contains(sentinel) { return seen }
            seen.append(event)
        }
        return seen
    }

    @Test("coins grant: the account's open page gets the new balance at once, in the stream's order; the pages show it")
    func grantReachesOpenPages() async throws {
        let work = try SlackFixture.workFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        try await TestApp.sqlite().run(.live) { app in
            let member = try await app.signedInBrowser(email: "coins@example.com", nickname: "코인")
            let id = try await RealtimeTests.userId(app, "coins@example.com")
            let before = try await app.count("SELECT coin_balance FROM users WHERE id = ?", [id])
            // A page the server may keep, read before the grant.
            #expect(try await member.get("/workspaces").text.contains("<span data-coin-balance>\(before)</span>"))
            try await EventStreamClient.connect(port: app.client.port!, headers: RealtimeTests.headers(member)) { stream in
                _ = try await stream.readHead()
                #expect(await eventually { await app.services.hub.subscriberCount == 1 })
                let latest = try await app.count("SELECT COALESCE(MAX(id), 0) FROM events")

                let granted = try await WSXBinary.runBeside(["coins", "grant", "--email", "coins@example.com", "--amount", "25",
                                                             "--reason", "보너스", "--data-dir", app.services.config.dataDirectory], in: work)
                #expect(granted.status == 0, "\(granted.output)")
                #expect(granted.output.contains("coins@example.com: balance \(before + 25) coins"), "\(granted.output)")
                #expect(granted.output.contains("the server running on"), "\(granted.output)")
                try await RealtimeTests.publish(app, RealtimeTests.note("sentinel", to: .user(id), type: .userUpdated))

                let seen = try await Self.events(before: "sentinel", in: &stream)
                let coins = try #require(seen.first { $0.type == "coins.changed" }, "\(seen)")
                #expect(coins.data.contains("\"balance\":\(before + 25)") && coins.data.contains("보너스"))
                // The server's next id: no gap, no id of the command's own.
                #expect(coins.id == String(latest + 1))
            }
            #expect(try await app.count("SELECT COUNT(*) FROM outside_events") == 0)
            #expect(try await member.get("/workspaces").text.contains("<span data-coin-balance>\(before + 25)</span>"))
        }
    }

    @Test("coins grant with no server running: queued, and relayed once by the server that starts next; an open tab replays it")
    func grantWithoutServer() async throws {
        let work = try SlackFixture.workFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        try WSXBinary(path: WSXBinary.builtPath).createAccount(email: "op@example.com", password: "correct horse", in: work)
        let granted = try await WSXBinary.runBeside(["coins", "grant", "--email", "op@example.com", "--amount", "7",
                                                     "--data-dir", "data"], in: work)
        #expect(granted.status == 0, "\(granted.output)")
        #expect(!granted.output.contains("the server running on"), "\(granted.output)")
        let data = work.appendingPathComponent("data").path
        let file = AppDatabase.path(inDataDirectory: data)
        let grant = "type = 'coins.changed' AND payload LIKE '%\"delta\":7,%'"
        let (queued, published) = try await DatabaseQueue(path: file).read { db in
            (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM outside_events WHERE \(grant)"),
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM events"))
        }
        #expect(queued == 1 && published == 0)

        try await TestApp.sqlite { $0.dataDirectory = data }.run(.live) { app in
            #expect(try await app.count("SELECT COUNT(*) FROM outside_events") == 0)
            #expect(try await app.count("SELECT COUNT(*) FROM events WHERE \(grant)") == 1)
            let op = app.browser()
            #expect(try await op.logIn(email: "op@example.com", password: "correct horse").status == .seeOther)
            let id = try await RealtimeTests.userId(app, "op@example.com")
            // A tab open since before the server started resumes from the last id it saw.
            try await EventStreamClient.connect(port: app.client.port!, headers: RealtimeTests.headers(op, lastEventId: "0")) { stream in
                _ = try await stream.readHead()
                #expect(await eventually { await app.services.hub.subscriberCount == 1 })
                try await RealtimeTests.publish(app, RealtimeTests.note("sentinel", to: .user(id), type: .userUpdated))
                let seen = try await Self.events(before: "sentinel", in: &stream)
                #expect(seen.filter { $0.type == "coins.changed" && $0.data.contains("\"delta\":7,") }.count == 1, "\(seen)")
            }
        }
    }
}
