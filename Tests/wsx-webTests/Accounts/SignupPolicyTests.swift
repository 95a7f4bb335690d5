import ArgumentParser
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import wsx_web

/// Who may make an account (`--signup`), whose address counts as theirs (confirmation by mail),
/// and who may claim an account an import made.
@Suite("Who gets in", .timeLimit(.minutes(5)))
struct SignupPolicyTests {
    static func inviteOnly(_ extra: @escaping (inout AppConfig) -> Void = { _ in }) -> TestApp {
        TestApp { config in
            config.signup = SignupPolicy(mode: .invite)
            extra(&config)
        }
    }

    @Test("--signup invite: the first account, invitations and join links get in; a stranger gets a clear page and no account")
    func inviteOnly() async throws {
        try await Self.inviteOnly().run { app in
            let first = try await app.signedInBrowser(email: "founder@example.com", nickname: "Founder")
            let stranger = app.browser()
            let form = try await stranger.get("/signup")
            #expect(form.status == .ok)
            #expect(form.text.contains("Sign-up on this server is by invitation."))
            #expect(!form.text.contains(#"name="password_confirm""#))
            let refused = try await stranger.signUp(email: "stranger@example.com", nickname: "Stranger", password: "long enough")
            #expect(refused.status == .forbidden && refused.text.contains("Sign-up on this server is by invitation."))
            #expect(try await app.count("SELECT COUNT(*) FROM users") == 1)

            // Through an invitation's own sign-up form.
            let wid = try await first.createWorkspace("Team")
            let link = try InvitationTests.link(try await first.invite("invited@example.com", to: wid))
            let invited = app.browser()
            try await invited.get(link)
            let joined = try await invited.post(link, [("nickname", "Invited"), ("phone", ""), ("password", "long enough"),
                                                       ("password_confirm", "long enough")])
            #expect(joined.status == .seeOther && joined.location == "/w/\(wid)")
            // Through the workspace's open join link.
            try await first.get("/w/\(wid)/members")
            _ = try await first.post("/w/\(wid)/join-link", [("expires", "7d"), ("max_uses", "")])
            let token = try #require(try await first.get("/w/\(wid)/members").text.firstMatch(of: /\/join\/([A-Za-z0-9_-]{43})/)?.1)
            let joiner = app.browser()
            let page = try await joiner.get("/signup?next=/join/\(token)")
            #expect(page.text.contains(#"name="password_confirm""#) && !page.text.contains("by invitation"))
            let made = try await joiner.post("/signup", [("email", "joiner@example.com"), ("nickname", "Joiner"), ("phone", ""),
                                                         ("password", "long enough"), ("password_confirm", "long enough"),
                                                         ("next", "/join/\(token)")])
            #expect(made.status == .seeOther && made.location?.hasPrefix("/w/") == true)   // joined on the way in
            // A made-up join link is no way in.
            let forged = try await app.browser().post("/signup", [("email", "x@example.com"), ("nickname", "X"), ("phone", ""),
                                                                  ("password", "long enough"), ("password_confirm", "long enough"),
                                                                  ("next", "/join/\(String(repeating: "A", count: 43))")])
            #expect(forged.status == .forbidden)
            #expect(try await app.count("SELECT COUNT(*) FROM users") == 3)
        }
    }

    @Test("--signup domain: addresses at the listed domains sign up, others are told which; it needs --smtp-url")
    func domains() async throws {
        try await Self.inviteOnly { $0.signup = SignupPolicy(mode: .domain, domains: ["corp.example", "corp.kr"]) }.run { app in
            _ = try await app.signedInBrowser(email: "founder@elsewhere.example")
            let page = try await app.browser().get("/signup")
            #expect(page.text.contains("Sign-up here is open to addresses at @corp.example, @corp.kr."))
            #expect(try await app.browser().signUp(email: "민아@CORP.kr", nickname: "민아", password: "long enough").status == .seeOther)
            let other = try await app.browser().signUp(email: "x@gmail.example", nickname: "X", password: "long enough")
            #expect(other.status == .unprocessableContent)
            #expect(other.text.contains("Sign-up here is for addresses at @corp.example, @corp.kr."))
        }
        let none = EnvironmentDefaults(values: [:])
        #expect(try ServeCommand.parse([]).resolvedConfig(environment: none).signup == SignupPolicy(mode: .invite))
        #expect(throws: ValidationError.self) {
            try ServeCommand.parse(["--signup", "domain", "--signup-domains", "corp.example"]).resolvedConfig(environment: none)
        }
        #expect(throws: ValidationError.self) { try ServeCommand.parse(["--signup", "anyone"]).resolvedConfig(environment: none) }
        let domain = try ServeCommand.parse(["--signup", "domain", "--signup-domains", "Corp.Example, corp.kr", "--smtp-url", "smtp://127.0.0.1:2525"])
            .resolvedConfig(environment: none)
        #expect(domain.signup == SignupPolicy(mode: .domain, domains: ["corp.example", "corp.kr"]))
        let env = EnvironmentDefaults(values: ["WSX_SIGNUP": "open", "WSX_REQUIRE_2FA": "admins"])
        let fromEnv = try ServeCommand.parse([]).resolvedConfig(environment: env)
        #expect(fromEnv.signup.mode == .open && fromEnv.requireTwoStep == .admins)
    }

    @Test("M1: an invitation waits on /workspaces only for an address confirmed by mail; the mailed link confirms it")
    func confirmedAddresses() async throws {
        try await MailTests.withMail().run(.live) { app in
            let owner = try await app.signedInBrowser(email: "owner@corp.example", nickname: "Owner")
            let wid = try await owner.createWorkspace("Corp")
            // Someone signs up with the new hire's address before the new hire does.
            let early = try await app.signedInBrowser(email: "newhire@corp.example", nickname: "Early")
            let mails = try await MailTests.queued(app, kind: "email_confirmation")
            #expect(mails.count == 2)
            let since = try await app.settledEventId()
            try await owner.get("/w/\(wid)/members")
            #expect(try await owner.post("/w/\(wid)/members", [("email", "newhire@corp.example")]).status == .ok)
            let arrived = try await ReplayScopeTests.replayed(app, early, email: "newhire@corp.example", from: since)
            #expect(!arrived.contains { $0.type == "invitation.received" })
            let list = try await early.get("/workspaces")
            #expect(list.text.contains(#"id="pending-invitations" hidden"#) && !list.text.contains("/invite/"))
            #expect(try await early.get("/profile").text.contains(#"id="email-unconfirmed""#))

            // The real person has the mailbox: its link confirms the address, and the invitation shows.
            let last = try #require(mails.last)
            let text = try #require(MailTests.part(last, "text/plain"))
            let confirm = String(try #require(text.firstMatch(of: /https:\/\/chat\.example\.com(\/confirm\/[A-Za-z0-9_-]{43})/)).1)
            let page = try await early.get(confirm)
            #expect(page.status == .ok && page.text.contains("This confirms that newhire@corp.example is yours."))
            #expect(try await app.count("SELECT COUNT(*) FROM users WHERE email_confirmed_at IS NOT NULL") == 0)
            #expect(try await early.post(confirm).location == "/workspaces")
            #expect(try await early.get("/workspaces").text.contains("/invite/"))
            #expect(try await early.get(confirm).status == .notFound)
            #expect(!(try await early.get("/profile")).text.contains(#"id="email-unconfirmed""#))
        }
    }

    @Test("H1: an account an import made is claimed only through the import's own invitation, never another inviter's link")
    func importedAccounts() async throws {
        let work = try SlackFixture.workFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        // oldtimer left the team (deleted in Slack) but their address is still in the export.
        let zip = try SlackFixture.zip(into: work) { folder in
            let url = folder.appendingPathComponent("users.json")
            let text = try String(contentsOf: url, encoding: .utf8)
            try text.replacingOccurrences(of: #""name": "oldtimer","#, with: #""name": "oldtimer", "profile": {"email": "old@example.com"},"#)
                .write(to: url, atomically: true, encoding: .utf8)
        }
        try await MailTests.withMail().run { app in
            _ = try await app.signedInBrowser(email: "mina@example.com", nickname: "Mina")
            let summary = try await SlackFixture.importer(app, mail: app.services.mailComposer)
                .run(.init(archive: zip, workspaceName: "Acme", ownerEmail: "mina@example.com"))
            #expect(try await app.count("SELECT COUNT(*) FROM users WHERE email = 'old@example.com' AND deactivated_at IS NOT NULL") == 1)
            #expect(try await app.count("SELECT COUNT(*) FROM users WHERE email = 'jiho@example.com' AND deactivated_at IS NULL") == 1)

            // A stranger with a workspace invites jiho and opens the link signed out.
            let stranger = try await app.signedInBrowser(email: "stranger@example.com")
            let theirs = try await stranger.createWorkspace("Trap")
            try await stranger.get("/w/\(theirs)/members")
            #expect(try await stranger.post("/w/\(theirs)/members", [("email", "jiho@example.com")]).status == .ok)
            let trap = try #require(try await stranger.get("/w/\(theirs)/members").text.firstMatch(of: /\/invite\/[A-Za-z0-9_-]{43}/)?.0)
            let visitor = app.browser()
            let page = try await visitor.get(String(trap))
            #expect(page.text.contains(#"id="claim-refused""#) && !page.text.contains(#"id="claim-form""#))
            let claimed = try await visitor.post(String(trap), [("password", "attacker password"), ("password_confirm", "attacker password")])
            #expect(claimed.status == .forbidden && visitor.setCookieHeader(named: CookiePolicy.session) == nil)
            #expect(try await app.count("SELECT COUNT(*) FROM users WHERE email = 'jiho@example.com' AND password_hash = ''") == 1)

            // The import's own invitation, mailed to jiho, still claims the account.
            let mailed = try app.database.query { tx in
                try tx.inspection.rows("""
                    SELECT message FROM mail_outbox WHERE kind = 'invitation' AND recipient = 'jiho@example.com' AND workspace_id = ?
                    """, [summary.workspaceId])
            }.map { $0[0] }
            let first = try #require(mailed.first)
            let own = try #require(MailTests.part(first, "text/plain")?.firstMatch(of: /\/invite\/[A-Za-z0-9_-]{43}/)?.0)
            let jiho = app.browser()
            #expect(try await jiho.get(String(own)).text.contains(#"id="claim-form""#))
            let ok = try await jiho.post(String(own), [("password", "jiho's own password"), ("password_confirm", "jiho's own password")])
            #expect(ok.status == .seeOther && ok.location == Paths.workspace(summary.workspaceId))

            // The deleted person's account cannot be reset into life either.
            let reset = app.browser()
            try await reset.get("/reset")
            _ = try await reset.post("/reset", [("email", "old@example.com")])
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await MailTests.queued(app, kind: "password_reset").isEmpty)
        }
    }
}
