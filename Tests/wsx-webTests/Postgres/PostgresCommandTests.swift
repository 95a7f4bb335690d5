import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import wsx_web

/// Operator commands given `--database`: they work on the PostgreSQL database a running node
/// serves, which hears of their writes at the commit (no socket); the commands that copy a data
/// folder refuse, naming what to use instead.
@Suite("Operator commands on PostgreSQL", .timeLimit(.minutes(5)))
struct PostgresCommandTests {
    @Test("user create, coins grant, user deactivate and audit export with --database reach the running node at once")
    func besideANode() async throws {
        let app = try await PostgresAppTests.app()
        let address = try #require(app.postgresAddress)
        let url = "postgres://\(address.user)@\(address.host):\(address.port)/\(address.database)"
        let work = try SlackFixture.workFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        try await app.run(.live) { app in
            _ = try await app.signedInBrowser(email: "first@example.com", nickname: "처음")
            let created = try await WSXBinary.runBeside(["user", "create", "--database", url, "--email", "op@example.com",
                                                         "--nickname", "운영자", "--password", "correct horse"], in: work)
            #expect(created.status == 0 && created.output.contains("<op@example.com>"), "\(created.output)")
            let op = app.browser()
            #expect(try await op.logIn(email: "op@example.com", password: "correct horse").status == .seeOther,
                    "the node signs in an account the command made")
            let id = try await RealtimeTests.userId(app, "op@example.com")

            try await EventStreamClient.connect(port: app.client.port!, headers: RealtimeTests.headers(op)) { stream in
                _ = try await stream.readHead()
                let granted = try await WSXBinary.runBeside(["coins", "grant", "--database", url, "--email", "op@example.com",
                                                             "--amount", "25", "--reason", "보너스"], in: work)
                #expect(granted.status == 0, "\(granted.output)")
                #expect(granted.output.contains("op@example.com: balance") && granted.output.contains("every node on the database shows it now"),
                        "\(granted.output)")
                try await RealtimeTests.publish(app, RealtimeTests.note("sentinel", to: .user(id), type: .userUpdated))
                let seen = try await OutsideCommandTests.events(before: "sentinel", in: &stream)
                let coins = try #require(seen.first { $0.type == "coins.changed" }, "\(seen)")
                #expect(coins.data.contains("보너스"), "the grant is live on the account's open page")
            }

            let deactivated = try await WSXBinary.runBeside(["user", "deactivate", "--database", url, "--email", "op@example.com"], in: work)
            #expect(deactivated.status == 0 && deactivated.output.contains("every node on the database has it now"), "\(deactivated.output)")
            let signedOut = try await eventually(timeout: .seconds(5)) {
                try await op.get("/workspaces").status == .seeOther
            }
            #expect(signedOut, "the node ends the deactivated account's session")

            let audit = try await WSXBinary.runBeside(["audit", "export", "--database", url, "--since", "1d"], in: work)
            #expect(audit.status == 0 && audit.output.contains("op@example.com"), "\(audit.output)")
        }
    }

    @Test("backup, restore, import and export with --database refuse, naming pg_dump and the files folder",
          arguments: [["backup", "--to", "out.tar"], ["restore", "--from", "out.tar"], ["export", "--workspace", "1", "--to", "out.zip"],
                      ["import", "slack", "none.zip", "--workspace", "W", "--owner", "a@example.com"]])
    func refusals(_ command: [String]) async throws {
        let address = try await PostgresTestCluster.shared().database()
        let url = "postgres://\(address.user)@\(address.host):\(address.port)/\(address.database)"
        let work = try SlackFixture.workFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let refused = try await WSXBinary.runBeside(command + ["--database", url], in: work)
        #expect(refused.status != 0)
        #expect(refused.output.contains("pg_dump") && refused.output.contains("--files-dir"), "\(refused.output)")
        #expect(!FileManager.default.fileExists(atPath: work.appendingPathComponent("out.tar").path))
    }
}
