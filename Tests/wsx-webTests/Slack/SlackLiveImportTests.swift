import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import wsx_web

/// `wsx-web import slack` run as an operator runs it, as its own process, on the data folder of
/// a server that is running: the server is told, and shows the workspace at once (its caches
/// read afresh) and delivers new messages of imported rooms to imported members live (its
/// room memberships read afresh), without a restart.
@Suite("Slack import into a running server", .timeLimit(.minutes(5)))
struct SlackLiveImportTests {
    @Test("the server running on the folder shows the import at once, and delivers the imported rooms' new messages live")
    func importIntoRunningServer() async throws {
        let work = try SlackFixture.workFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let zip = try SlackFixture.zip(into: work)
        // The import writes the server's folder (on PostgreSQL it refuses: PostgresCommandTests).
        try await TestApp.sqlite().run(.live) { app in
            let (mina, bob) = try await SlackImportTests.accounts(app)
            #expect(try await bob.get("/workspaces").text.contains("Acme") == false)
            try await EventStreamClient.connect(port: app.client.port!, headers: RealtimeTests.headers(bob)) { stream in
                _ = try await stream.readHead()
                #expect(await eventually { await app.services.hub.subscriberCount == 1 })

                let imported = try await WSXBinary.runBeside(["import", "slack", zip.path, "--workspace", "Acme", "--owner", "mina@example.com",
                                                   "--data-dir", app.services.config.dataDirectory], in: work)
                #expect(imported.status == 0, "\(imported.output)")
                #expect(imported.output.contains("the server running on"), "\(imported.output)")

                #expect(try await bob.get("/workspaces").text.contains("Acme"))
                let wid = try await app.count("SELECT id FROM workspaces WHERE name = 'Acme'")
                let dev = try await app.count("SELECT id FROM rooms WHERE name = '개발'")
                #expect(try await bob.get("/w/\(wid)/c/\(dev)").text.contains("코드 리뷰 부탁드려요"))
                try await mina.get("/w/\(wid)/c/\(dev)")
                #expect(try await mina.post("/w/\(wid)/c/\(dev)/messages", [("content", "가져온 채널의 새 소식")]).status == .seeOther)
                var delivered = false
                while let event = try await stream.next() {
                    if event.type == "message.created", event.data.contains("가져온 채널의 새 소식") {
                        delivered = true
                        break
                    }
                }
                #expect(delivered)
            }
        }
    }

    @Test("without a server on the folder, the import says so; the server started afterwards shows it")
    func importWithoutServer() async throws {
        let work = try SlackFixture.workFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let zip = try SlackFixture.zip(into: work)
        let binary = WSXBinary(path: WSXBinary.builtPath)
        try binary.createAccount(email: "mina@example.com", password: "correct horse", in: work)
        let imported = try await WSXBinary.runBeside(["import", "slack", zip.path, "--workspace", "Acme", "--owner", "mina@example.com",
                                           "--data-dir", "data"], in: work)
        #expect(imported.status == 0 && imported.output.contains("no server is running on data"), "\(imported.output)")
        #expect(imported.output.contains("messages: 23 new (3 replies in threads)"), "\(imported.output)")
        let refused = try await WSXBinary.runBeside(["import", "slack", work.appendingPathComponent("missing.zip").path, "--workspace", "Acme",
                                          "--owner", "mina@example.com", "--data-dir", "data"], in: work)
        #expect(refused.status != 0 && refused.output.contains("cannot read"), "\(refused.output)")

        // And out again, by name, with the private conversations; never over an existing file.
        let exported = try await WSXBinary.runBeside(["export", "--workspace", "Acme", "--to", "acme.zip", "--include-private",
                                                 "--data-dir", "data"], in: work)
        #expect(exported.status == 0 && exported.output.contains("23 messages, 1 files"),
                "\(exported.output)")
        let written = work.appendingPathComponent("acme.zip").path
        #expect(((try FileManager.default.attributesOfItem(atPath: written)[.posixPermissions]) as? Int) == 0o600)
        let again = try await WSXBinary.runBeside(["export", "--workspace", "Acme", "--to", "acme.zip", "--data-dir", "data"], in: work)
        #expect(again.status != 0 && again.output.contains("exists already"), "\(again.output)")
        let unknown = try await WSXBinary.runBeside(["export", "--workspace", "Nope", "--to", "nope.zip", "--data-dir", "data"], in: work)
        #expect(unknown.status != 0 && unknown.output.contains("no such workspace"), "\(unknown.output)")
        let data = work.appendingPathComponent("data").path
        let server = TestApp.sqlite { $0.dataDirectory = data }
        try await server.run { (app: TestSession) async throws -> Void in
            let mina = app.browser()
            #expect(try await mina.logIn(email: "mina@example.com", password: "correct horse").status == .seeOther)
            #expect(try await mina.get("/workspaces").text.contains("Acme"))
        }
    }
}
