import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import wsx_web

/// Server administrators and the accounts they control: the first account is one; `/admin` is
/// theirs alone; deactivating someone ends their sessions and streams at once and keeps what
/// they wrote; the last active administrator stays one; a deactivated owner's workspace goes to
/// a member; the same from the command line beside a running server. The migration of an
/// older data folder is SQLite's own test (`SQLite/AdministrationMigrationTests.swift`).
@Suite("Account control", .timeLimit(.minutes(5)))
struct AdministrationTests {
    @Test("the first account is the server's administrator; /admin is a 404 for everyone else")
    func firstAccountIsAdmin() async throws {
        try await TestApp().run { app in
            let admin = try await app.signedInBrowser(email: "first@example.com", nickname: "First")
            let member = try await app.signedInBrowser(email: "second@example.com", nickname: "Second")
            #expect(try await app.count("SELECT is_admin FROM users WHERE email = 'first@example.com'") == 1)
            #expect(try await app.count("SELECT is_admin FROM users WHERE email = 'second@example.com'") == 0)
            let page = try await admin.get("/admin")
            #expect(page.status == .ok)
            #expect(page.text.contains(#"data-account="#) && page.text.contains("second@example.com"))
            #expect(try await admin.get("/workspaces").text.contains(#"class="admin-link""#))
            for path in ["/admin", "/admin/workspaces", "/admin/mail", "/admin/log"] {
                #expect(try await member.get(path).status == .notFound, "\(path)")
            }
            #expect(!(try await member.get("/workspaces")).text.contains(#"class="admin-link""#))
            let uid = try await app.userId("first@example.com")
            try await member.get("/workspaces")
            #expect(try await member.post("/admin/users/\(uid)/deactivate").status == .notFound)
            // Search by address or nickname.
            let found = try await admin.get("/admin?q=Seco")
            #expect(found.text.contains("second@example.com") && !found.text.contains(">first@example.com<"))
        }
    }

    @Test("deactivating: the stream closes and the tab is signed out at once; sign-in refused with a clear message; history stays",
          .timeLimit(.minutes(2)))
    func deactivation() async throws {
        try await TestApp().run(.live) { app in
            let admin = try await app.signedInBrowser(email: "admin@example.com", nickname: "Admin")
            let wid = try await admin.createWorkspace("Company")
            let leaver = try await app.signedInBrowser(email: "leaver@example.com", nickname: "떠나는사람", password: "leaver password")
            try await app.addMember(email: "leaver@example.com", to: wid, by: admin)
            let general = try await app.count("SELECT id FROM rooms WHERE workspace_id = ? AND is_default = TRUE", [wid])
            #expect(try await MessagingTests.say(leaver, "/w/\(wid)/c/\(general)", "인수인계 문서 남깁니다").status == .seeOther)
            let uid = try await app.userId("leaver@example.com")

            let closed = try await EventStreamClient.connect(port: app.client.port!, headers: ["Cookie": leaver.cookieHeader]) { reader in
                _ = try await reader.readHead()
                #expect(await eventually { await app.services.hub.subscriberCount >= 1 })
                try await admin.get("/admin")
                let done = try await admin.post("/admin/users/\(uid)/deactivate")
                #expect(done.status == .seeOther)
                // The stream ends on its own (a revoked session), with no reconnect asked.
                while let event = try await reader.next() { if event.type == "session.revoked" { continue } }
                return true
            }
            #expect(closed)
            #expect(try await leaver.get("/workspaces").location?.hasPrefix("/login") == true)
            let refused = try await app.browser().logIn(email: "leaver@example.com", password: "leaver password")
            #expect(refused.status == .forbidden)
            #expect(refused.text.contains("This account was deactivated by an administrator of this server."))
            let guessed = try await app.browser().logIn(email: "leaver@example.com", password: "not the password")
            #expect(guessed.status == .unauthorized && guessed.text.contains("The email or password is incorrect."))
            #expect(try await app.count("SELECT COUNT(*) FROM sessions WHERE user_id = ?", [uid]) == 0)

            // What they wrote stays, marked.
            let channel = try await admin.get("/w/\(wid)/c/\(general)")
            #expect(channel.text.contains("인수인계 문서 남깁니다"))
            #expect(channel.text.contains(#"<span class="author-deactivated local-text" lang="en">(deactivated)</span>"#))
            let list = try await admin.get("/admin")
            #expect(list.text.contains(#"data-account="\#(uid)" data-state="deactivated""#))
            #expect(list.text.contains("/admin/users/\(uid)/reactivate"))
            // In the log, with who did it.
            let log = try await admin.get("/admin/log")
            #expect(log.text.contains("admin@example.com deactivated leaver@example.com"))

            try await admin.post("/admin/users/\(uid)/reactivate")
            #expect(try await app.browser().logIn(email: "leaver@example.com", password: "leaver password").status == .seeOther)
            #expect(!(try await admin.get("/w/\(wid)/c/\(general)")).text.contains("author-deactivated"))
        }
    }

    @Test("the last active administrator cannot be demoted or deactivated; a second one can")
    func lastAdministrator() async throws {
        try await TestApp().run { app in
            let admin = try await app.signedInBrowser(email: "admin@example.com")
            _ = try await app.signedInBrowser(email: "other@example.com")
            let (me, other) = (try await app.userId("admin@example.com"), try await app.userId("other@example.com"))
            try await admin.get("/admin")
            let page = try await admin.get("/admin")
            #expect(!page.text.contains("/admin/users/\(me)/demote") && !page.text.contains("/admin/users/\(me)/deactivate"))
            let demoted = try await admin.post("/admin/users/\(me)/demote")
            #expect(demoted.status == .conflict)
            #expect(demoted.text.contains("This is the only active administrator: make someone else one first."))
            #expect(try await admin.post("/admin/users/\(me)/deactivate").status == .conflict)
            #expect(try await admin.post("/admin/users/\(other)/promote").status == .seeOther)
            #expect(try await admin.post("/admin/users/\(me)/demote").status == .seeOther)
            #expect(try await app.count("SELECT COUNT(*) FROM users WHERE is_admin = TRUE") == 1)
            // No longer an administrator: the pages are gone for them.
            #expect(try await admin.get("/admin").status == .notFound)
            let service = app.services.administration
            await #expect(throws: AppError.self) { try await service.deactivate(userId: other, by: nil) }
        }
    }

    @Test("a deactivated owner's workspace is handed to an active member, who then owns it")
    func handOver() async throws {
        try await TestApp().run { app in
            let admin = try await app.signedInBrowser(email: "admin@example.com")
            let owner = try await app.signedInBrowser(email: "owner@example.com")
            let wid = try await owner.createWorkspace("Left Behind")
            let heir = try await app.signedInBrowser(email: "heir@example.com", nickname: "Heir")
            try await app.addMember(email: "heir@example.com", to: wid, by: owner)
            let (ownerId, heirId) = (try await app.userId("owner@example.com"), try await app.userId("heir@example.com"))
            try await admin.get("/admin/workspaces")
            // While the owner is active, the owner hands it over themselves.
            #expect(try await admin.post("/admin/workspaces/\(wid)/owner", [("owner_id", "\(heirId)")]).status == .conflict)
            try await app.services.administration.deactivate(userId: ownerId, by: nil)
            let page = try await admin.get("/admin/workspaces")
            #expect(page.text.contains(#"<option value="\#(heirId)">Heir</option>"#))
            let handed = try await admin.post("/admin/workspaces/\(wid)/owner", [("owner_id", "\(heirId)")])
            #expect(handed.status == .seeOther)
            #expect(try await app.count("SELECT owner_id FROM workspaces WHERE id = ?", [wid]) == Int(heirId))
            #expect(try await heir.get("/w/\(wid)/settings").status == .ok)
            #expect(try await app.count("SELECT COUNT(*) FROM audit_log WHERE action = 'workspace.transfer' AND workspace_id = ?", [wid]) == 1)
        }
    }

    @Test("user deactivate beside a running server: its open stream closes and its pages sign out at once; promote, demote, reactivate",
          .timeLimit(.minutes(2)))
    func commandLine() async throws {
        let work = try makeEmptyFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        // The command finds the server by its data folder; on PostgreSQL by the database
        // (`PostgresCommandTests`).
        try await TestApp.sqlite().run(.live) { app in
            let data = app.services.config.dataDirectory
            _ = try await app.signedInBrowser(email: "admin@example.com")
            let leaver = try await app.signedInBrowser(email: "cli@example.com", password: "cli password")
            try await EventStreamClient.connect(port: app.client.port!, headers: ["Cookie": leaver.cookieHeader]) { reader in
                _ = try await reader.readHead()
                #expect(await eventually { await app.services.hub.subscriberCount >= 1 })
                let result = try await WSXBinary.runBeside(["user", "deactivate", "--email", "CLI@example.com", "--data-dir", data], in: work)
                #expect(result.status == 0, "\(result.output)")
                #expect(result.output.contains("cli@example.com is deactivated"))
                #expect(result.output.contains("the server running on"))
                var revoked = false
                while let event = try await reader.next() { if event.type == "session.revoked" { revoked = true } }
                #expect(revoked)
            }
            #expect(try await leaver.get("/workspaces").location?.hasPrefix("/login") == true)
            #expect(try await app.browser().logIn(email: "cli@example.com", password: "cli password").status == .forbidden)
            let last = try await WSXBinary.runBeside(["user", "demote", "--email", "admin@example.com", "--data-dir", data], in: work)
            #expect(last.status != 0 && last.output.contains("is the only active administrator"), "\(last.output)")
            let back = try await WSXBinary.runBeside(["user", "reactivate", "--email", "cli@example.com", "--data-dir", data], in: work)
            #expect(back.status == 0)
            #expect(try await app.browser().logIn(email: "cli@example.com", password: "cli password").status == .seeOther)
            let promoted = try await WSXBinary.runBeside(["user", "promote", "--email", "cli@example.com", "--data-dir", data], in: work)
            #expect(promoted.status == 0 && promoted.output.contains("cli@example.com is a server administrator"))
            #expect(try await app.count("SELECT is_admin FROM users WHERE email = 'cli@example.com'") == 1)
        }
    }
}
