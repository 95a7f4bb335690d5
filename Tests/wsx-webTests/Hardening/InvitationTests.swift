import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import wsx_web

/// Class: doing something to someone without their say, and telling who has an account.
/// Invitations never add anyone: the invited person accepts or declines; the inviter gets the
/// same answer whoever the address belongs to; links point where the operator says.
@Suite("Invitations", .timeLimit(.minutes(5)))
struct InvitationTests {
    static func link(_ page: TestResponse) throws -> String {
        String(try #require(page.text.firstMatch(of: /<code id="invite-link">[^<]*(\/invite\/[A-Za-z0-9_-]{43})<\/code>/)?.1))
    }

    /// The members page after inviting, with the address and token masked, and without the
    /// owner's list of pending invitations (which grows by one with every invitation, whoever
    /// it went to) and the page's event-stream resume point (the server's newest event id: it
    /// moves with any event anywhere, here the invitee's own notice, which the hub takes in on
    /// its own time; the sign-up form tells whether an address has an account anyway).
    static func masked(_ page: TestResponse, email: String) -> String {
        page.text.replacingOccurrences(of: email, with: "EMAIL")
            .replacing(/\/invite\/[A-Za-z0-9_-]{43}/, with: "/invite/TOKEN")
            .replacing(/<ul class="pending-invites"[\s\S]*?<\/ul>/, with: "")
            .replacing(/<meta name="(last-event-id|rooms-counted-through|threads-counted-through)" content="\d*">/, with: "")
    }

    @Test("inviting adds nobody, and the answer is the same for an address with an account and one without")
    func sameAnswer() async throws {
        try await TestApp().run { app in
            let owner = try await app.signedInBrowser(email: "owner@example.com", nickname: "Owner")
            let wid = try await owner.createWorkspace("Team")
            _ = try await app.signedInBrowser(email: "has@example.com", nickname: "HasAccount")
            let known = try await owner.invite("has@example.com", to: wid)
            let unknown = try await owner.invite("nobody@example.com", to: wid)
            #expect(known.status == unknown.status)
            #expect(Self.masked(known, email: "has@example.com") == Self.masked(unknown, email: "nobody@example.com"))
            #expect(!known.text.contains("HasAccount"))
            #expect(try await app.count("SELECT COUNT(*) FROM workspace_members WHERE workspace_id = ?", [wid]) == 1)
            // Inviting again while it waits answers with the same link.
            #expect(try Self.link(try await owner.invite("HAS@example.com", to: wid)) == Self.link(known))
            #expect(try await app.count("SELECT COUNT(*) FROM invites") == 2)
        }
    }

    @Test("the invited person sees it on /workspaces, live, names workspace and inviter, and accepts with one click")
    func acceptFromTheList() async throws {
        try await TestApp().run(.live) { app in
            let owner = try await app.signedInBrowser(email: "owner@example.com", nickname: "민아")
            let wid = try await owner.createWorkspace("디자인팀")
            let guest = try await app.signedInBrowser(email: "guest@example.com", nickname: "Guest")
            try await app.confirmAddress("guest@example.com")
            #expect(try await guest.get("/workspaces").text.contains(#"id="pending-invitations" hidden"#))
            let since = try await app.settledEventId()
            let link = try Self.link(try await owner.invite("guest@example.com", to: wid))

            // Arriving live: the invitee's stream carries it, with the link and names.
            let arrived = try await ReplayScopeTests.replayed(app, guest, email: "guest@example.com", from: since)
            let event = try #require(arrived.first { $0.type == "invitation.received" })
            #expect(event.data.contains(link))
            #expect(event.data.contains("디자인팀") && event.data.contains("민아"))
            // Listed on their workspaces page.
            let list = try await guest.get("/workspaces")
            #expect(!list.text.contains(#"id="pending-invitations" hidden"#))
            #expect(list.text.contains(#"<a href="\#(link)">"#))
            #expect(list.text.contains("<strong>디자인팀</strong>"))
            #expect(list.text.contains("민아 invited you"))

            let page = try await guest.get(link)
            #expect(page.text.contains("디자인팀"))
            #expect(page.text.contains("민아 invited you"))
            // One click: only the CSRF token.
            let accepted = try await guest.post(link)
            #expect(accepted.location == "/w/\(wid)")
            #expect(try await guest.get("/w/\(wid)").status == .ok)
            #expect(try await guest.get("/workspaces").text.contains(#"id="pending-invitations" hidden"#))
            #expect(try await app.count("SELECT COUNT(*) FROM events WHERE type = 'invitation.resolved'") == 1)
            #expect(try await guest.get(link).status == .notFound)
        }
    }

    @Test("declining takes it off the list and adds nobody; a declined or expired invitation can be sent again")
    func declineAndResend() async throws {
        try await TestApp().run { app in
            let owner = try await app.signedInBrowser(email: "owner@example.com")
            let wid = try await owner.createWorkspace("Team")
            let guest = try await app.signedInBrowser(email: "guest@example.com")
            try await app.confirmAddress("guest@example.com")
            let first = try Self.link(try await owner.invite("guest@example.com", to: wid))
            try await guest.get(first)
            let declined = try await guest.post(first + "/decline")
            #expect(declined.location == "/workspaces")
            #expect(try await guest.get("/workspaces").text.contains("You declined the invitation."))
            #expect(try await guest.get(first).status == .notFound)
            #expect(try await guest.post(first).status == .notFound)
            #expect(try await app.count("SELECT COUNT(*) FROM workspace_members") == 1)

            let second = try Self.link(try await owner.invite("guest@example.com", to: wid))
            #expect(second != first)
            #expect(try await guest.get("/workspaces").text.contains(second))
            app.clock.advance(by: 7 * 24 * 60 * 60 + 1)
            #expect(try await guest.get(second).status == .notFound)
            #expect(!(try await guest.get("/workspaces").text.contains(second)))
            let third = try Self.link(try await owner.invite("guest@example.com", to: wid))
            #expect(third != second)
            try await guest.get(third)
            #expect(try await guest.post(third).location == "/w/\(wid)")
        }
    }

    @Test("another account can neither accept nor decline; a visitor without a session can sign up or log in")
    func otherAccountsAndVisitors() async throws {
        try await TestApp().run { app in
            let owner = try await app.signedInBrowser(email: "owner@example.com", nickname: "Owner")
            let wid = try await owner.createWorkspace("Team")
            let link = try Self.link(try await owner.invite("invited@example.com", to: wid))
            let other = try await app.signedInBrowser(email: "other@example.com")
            #expect(try await other.get(link).text.contains("This invitation was sent to another address."))
            #expect(try await other.post(link).status == .forbidden)
            #expect(try await other.post(link + "/decline").status == .forbidden)
            let visitor = app.browser()
            let page = try await visitor.get(link)
            #expect(page.text.contains(#"value="invited@example.com" readonly"#))
            #expect(page.text.contains("Owner invited you"))
            #expect(page.text.contains(#"href="/login?next=/invite/"#))
            #expect(try await app.count("SELECT COUNT(*) FROM workspace_members") == 1)
        }
    }

    @Test("without --base-url links start with http://localhost:PORT whatever the Host header says, and the page says to set it")
    func linksNeverFromHost() async throws {
        try await TestApp().run(.live) { app in
            let owner = try await app.signedInBrowser(email: "owner@example.com")
            let wid = try await owner.createWorkspace("Team")
            try await owner.get("/w/\(wid)/members")
            let token = try #require(owner.csrfToken)
            // A request that names another host, directly and through proxy headers.
            let client = try await RawClient.connect(port: app.client.port!)
            let body = "_csrf=\(token)&email=x%40example.com"
            try await client.send("POST /w/\(wid)/members HTTP/1.1\r\nHost: evil.example\r\nX-Forwarded-Host: evil.example\r\n"
                                  + "X-Forwarded-Proto: https\r\nCookie: \(owner.cookieHeader)\r\n"
                                  + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
            #expect(await client.waitFor("</html>", within: .seconds(3)))
            #expect(client.received.contains(#"<code id="invite-link">http://localhost:\#(app.client.port!)/invite/"#))
            #expect(!client.received.contains("evil.example"))
            #expect(client.received.contains(#"id="base-url-hint""#))
        }
        try await TestApp { $0.baseURL = "https://chat.example.com" }.run { app in
            let owner = try await app.signedInBrowser(email: "owner@example.com")
            let wid = try await owner.createWorkspace("Team")
            let page = try await owner.invite("x@example.com", to: wid)
            #expect(page.text.contains(#"<code id="invite-link">https://chat.example.com/invite/"#))
            #expect(!page.text.contains(#"id="base-url-hint""#))
        }
    }
}
