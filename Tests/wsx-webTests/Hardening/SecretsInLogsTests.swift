import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import Testing
@testable import wsx_web

/// Class: secrets in logs. Paths and query strings carry one-time tokens (password resets,
/// invitations); request logs name the route's template instead, at every level.
@Suite("Secrets in logs", .timeLimit(.minutes(5)))
struct SecretsInLogsTests {
    @Test("request logs name route templates, never the tokens in paths or query strings, even at trace level")
    func noTokensInLogs() async throws {
        try await TestApp(configure: { $0.logLevel = .trace }).run { app in
            let owner = try await app.signedInBrowser(email: "owner@example.com")
            let workspace = try await owner.createWorkspace("Logs")
            _ = try await app.signedInBrowser(email: "reset@example.com", password: "first password")
            let reset = try await app.services.accounts.createPasswordReset(email: "reset@example.com")
            let access = try await app.services.workspaces.access(workspaceId: workspace, userId: try await app.userId("owner@example.com"))
            let invite = try await app.services.invitations.invite(access, email: "new@example.com").token
            let made = "0123456789abcdefghijABCDEFGHIJ-_0123456789x"   // a well-formed token nobody issued

            let visitor = app.browser()
            #expect(try await visitor.get("/reset/\(reset)").status == .ok)
            #expect(try await visitor.post("/reset/\(reset)", [("password", "x"), ("password_confirm", "y")]).status
                    == .unprocessableContent)
            #expect(try await visitor.post("/reset/\(reset)", [("password", "x")], csrf: .value("wrong")).status == .forbidden)
            #expect(try await visitor.get("/invite/\(invite)").status == .ok)
            #expect(try await visitor.get("/invite/\(made)").status == .notFound)
            #expect(try await visitor.get("/login?next=%2Freset%2F\(reset)").status == .ok)
            #expect(try await visitor.get("/no/such/\(made)?token=\(reset)").status == .notFound)
            #expect(try await visitor.get("/files/\(made)").status != .ok)

            let lines = app.logs.all
            for secret in [reset, invite, made] {
                #expect(!lines.contains { $0.contains(secret) }, "a log line carries \(secret)")
            }
            #expect(lines.contains { $0.contains("route=/reset/{token}") && $0.contains("status=200") })
            #expect(lines.contains { $0.contains("route=/invite/{token}") && $0.contains("status=404") })
            #expect(lines.contains { $0.contains("route=NotFound") })
            #expect(lines.contains { $0.contains("CSRF token missing or wrong") && $0.contains("route=/reset/{token}") })
        }
    }
}

/// The same for the binary as an operator runs it: what it writes to its output.
@Suite("Secrets in logs: the binary", .serialized, .timeLimit(.minutes(5)))
struct SecretsInBinaryLogsTests {
    @Test("the server's own log names /reset/{token}, never the token an operator printed")
    func binaryLog() async throws {
        let folder = try makeEmptyFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let binary = WSXBinary(path: WSXBinary.builtPath)
        try binary.createAccount(email: "l@example.com", password: "log password", in: folder)
        let printed = try binary.run(["user", "reset-password", "--data-dir", "data", "--email", "l@example.com"], in: folder)
        let token = String(try #require(printed.stdout.firstMatch(of: /\/reset\/([A-Za-z0-9_-]{43})/)?.1))
        let server = try binary.serveLogged(["--data-dir", "data", "--log-level", "trace"], in: folder)
        defer { server.stop() }
        #expect(try await fetch(server.base.appendingPathComponent("reset/\(token)")).status == 200)
        #expect(try await fetch(URL(string: "\(server.base)/login?next=/reset/\(token)")!).status == 200)
        try await Task.sleep(for: .milliseconds(200))
        #expect(server.log.contains("route=/reset/{token}"))
        #expect(!server.log.contains(token))
    }
}
