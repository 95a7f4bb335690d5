import Foundation
import Testing
@testable import wsx_web

/// The binary on its own: copied into an empty folder, it serves every page from what it carries.
@Suite("The wsx-web binary", .serialized, .timeLimit(.minutes(5)))
struct BinaryTests {
    @Test("copied to an empty folder, it creates its database and serves the login page, styles and health")
    func servesFromEmptyFolder() async throws {
        let folder = try makeEmptyFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let copy = folder.appendingPathComponent("wsx-web")
        try FileManager.default.copyItem(atPath: WSXBinary.builtPath, toPath: copy.path)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["wsx-web"])

        let (server, base) = try WSXBinary(path: copy.path).serve(["--data-dir", "data"], in: folder)
        defer { server.terminate(); server.waitUntilExit() }

        let login = try await fetch(base.appendingPathComponent("login"))
        #expect(login.status == 200)
        #expect(login.body.contains(#"<form method="post" action="/login""#))
        let css = try #require(login.body.firstMatch(of: /href="\/static\/(app\.css)\?v=/)?.1)
        let style = try await fetch(base.appendingPathComponent("static/\(css)"))
        #expect(style.status == 200)
        #expect(style.body.contains(".sidebar"))
        #expect(try await fetch(base.appendingPathComponent("healthz")).body == "ok\n")
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("data/wsx.sqlite").path))
    }

    @Test("--templates-dir overrides the embedded templates, and a missing folder stops start-up with its name")
    func templatesOverride() async throws {
        let folder = try makeEmptyFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let binary = WSXBinary(path: WSXBinary.builtPath)
        let failed = try binary.run(["serve", "--port", "0", "--data-dir", "data", "--templates-dir", "nowhere"], in: folder)
        #expect(failed.status != 0)
        #expect(failed.stderr.contains("templates folder nowhere does not exist"))

        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        let templates = folder.appendingPathComponent("tpl")
        try FileManager.default.copyItem(at: root.appendingPathComponent("Templates"), to: templates)
        let login = templates.appendingPathComponent("login.mustache")
        try (String(contentsOf: login, encoding: .utf8) + "<p>local edit</p>").write(to: login, atomically: true, encoding: .utf8)
        let (server, base) = try binary.serve(["--data-dir", "data", "--templates-dir", templates.path], in: folder)
        defer { server.terminate(); server.waitUntilExit() }
        #expect(try await fetch(base.appendingPathComponent("login")).body.contains("<p>local edit</p>"))
    }

    @Test("--help lists serve, migrate and user; serve's help lists its flags with their WSX_ variables")
    func help() throws {
        let binary = WSXBinary(path: WSXBinary.builtPath)
        let folder = try makeEmptyFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let top = try binary.run(["--help"], in: folder).stdout
        for command in ["serve", "migrate", "user"] { #expect(top.contains(command)) }
        let serve = try binary.run(["serve", "--help"], in: folder).stdout
        for flag in ["--host", "--port", "--data-dir", "--templates-dir", "--public-dir", "WSX_PORT", "WSX_DATA_DIR"] {
            #expect(serve.contains(flag), "\(flag) missing from serve --help")
        }
        #expect(try binary.run(["user", "--help"], in: folder).stdout.contains("reset-password"))
    }

    @Test("operators create accounts and print one-time reset links from the command line")
    func operatorCommands() async throws {
        let folder = try makeEmptyFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let binary = WSXBinary(path: WSXBinary.builtPath)
        let migrate = try binary.run(["migrate", "--data-dir", "data"], in: folder)
        #expect(migrate.status == 0)
        #expect(migrate.stdout.contains("  001-accounts\n"))
        #expect(migrate.stdout.contains("  002-events\n"))

        let created = try binary.run(["user", "create", "--data-dir", "data", "--email", "op@example.com", "--nickname", "운영자"],
                                     in: folder, environment: ["WSX_USER_PASSWORD": "operator password"])
        #expect(created.status == 0)
        #expect(created.stdout.contains("created user 1 <op@example.com>"))
        let duplicate = try binary.run(["user", "create", "--data-dir", "data", "--email", "OP@example.com", "--nickname", "x",
                                        "--password", "another password"], in: folder)
        #expect(duplicate.status != 0)
        #expect(duplicate.stderr.contains("An account with this email already exists."))

        let reset = try binary.run(["user", "reset-password", "--data-dir", "data", "--email", "op@example.com",
                                    "--base-url", "https://chat.example.com/"], in: folder)
        #expect(reset.status == 0)
        let token = try #require(reset.stdout.firstMatch(of: /https:\/\/chat\.example\.com\/reset\/([A-Za-z0-9_-]{43})\n/)?.1)
        #expect(reset.stdout.contains("1 hour"))

        // The printed link works on the running server.
        let (server, base) = try binary.serve(["--data-dir", "data"], in: folder)
        defer { server.terminate(); server.waitUntilExit() }
        let page = try await fetch(base.appendingPathComponent("reset/\(token)"))
        #expect(page.status == 200)
        #expect(page.body.contains("op@example.com"))

        let granted = try binary.run(["coins", "grant", "--data-dir", "data", "--email", "op@example.com", "--amount", "25"], in: folder)
        #expect(granted.status == 0)
        #expect(granted.stdout.contains("op@example.com: balance 35 coins"))
        let overdraw = try binary.run(["coins", "grant", "--data-dir", "data", "--email", "op@example.com", "--amount=-100"], in: folder)
        #expect(overdraw.status != 0)
        #expect(overdraw.stderr.contains("cannot go below zero"))

        let unknown = try binary.run(["user", "reset-password", "--data-dir", "data", "--email", "nobody@example.com"], in: folder)
        #expect(unknown.status != 0)
        #expect(unknown.stderr.contains("no account has the email nobody@example.com"))
    }

    @Test("SIGTERM ends open event streams cleanly and the server exits")
    func shutdownEndsStreams() async throws {
        let folder = try makeEmptyFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let binary = WSXBinary(path: WSXBinary.builtPath)
        try binary.createAccount(email: "s@example.com", password: "shutdown password", in: folder)
        let (server, base) = try binary.serve(["--data-dir", "data", "--bcrypt-cost", "4"], in: folder)
        defer { if server.isRunning { server.terminate() } }
        let cookie = try await signIn(base: base, email: "s@example.com", password: "shutdown password")
        let started = ContinuousClock.now
        try await EventStreamClient.connect(port: base.port!, headers: ["Cookie": cookie]) { reader in
            #expect(try await reader.readHead().status == 200)
            server.terminate()   // SIGTERM
            while let _ = try await reader.next(includingComments: true) {}
        }
        server.waitUntilExit()
        #expect(server.terminationStatus == 0)
        #expect(ContinuousClock.now - started < .seconds(10))
    }
}
