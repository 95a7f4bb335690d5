import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import wsx_web

/// The owner's side of getting people in: pending invitations on the members page (link to
/// copy, resend, revoke) and the workspace's open join link (expiry, use limit, reset, off).
@Suite("Invitations and join links", .timeLimit(.minutes(5)))
struct InvitationAdminTests {
    static func owned(_ app: TestSession) async throws -> (owner: TestBrowser, member: TestBrowser, wid: Int64) {
        let (a, b, wid, _) = try await MessagingTests.team(app)
        return (a, b, wid)
    }

    static func inviteId(_ app: TestSession, _ email: String) async throws -> Int64 {
        Int64(try await app.count("SELECT id FROM invites WHERE email = ? ORDER BY id DESC LIMIT 1", [email]))
    }

    @Test("pending invitations: listed for the owner with expiry and link; resend gives seven more days; revoke ends the link")
    func pending() async throws {
        try await TestApp().run { app in
            let (owner, member, wid) = try await Self.owned(app)
            let invited = try await owner.invite("guest@example.com", to: wid)
            let link = String(try #require(invited.text.firstMatch(of: /http:\/\/localhost:\d+(\/invite\/[A-Za-z0-9_-]{43})/)).1)
            let id = try await Self.inviteId(app, "guest@example.com")
            let page = try await owner.get("/w/\(wid)/members")
            #expect(page.text.contains("Pending invitations"))
            #expect(page.text.contains(#"<li data-invite="\#(id)">"#) && page.text.contains("<strong>guest@example.com</strong>"))
            #expect(page.text.contains(#"readonly value="http://localhost:"#) && page.text.contains(link + #"" id="invite-link-\#(id)""#))
            #expect(page.text.contains(#"data-copy="invite-link-\#(id)" data-copied="Copied">Copy link</button>"#))
            // Members see none of it, and cannot act on it; the database stays as it was.
            let theirs = try await member.get("/w/\(wid)/members")
            #expect(!theirs.text.contains("guest@example.com") && !theirs.text.contains("join-link-form"))
            #expect(try await member.post("/w/\(wid)/invitations/\(id)/revoke").status == .forbidden)
            #expect(try await member.post("/w/\(wid)/invitations/\(id)/resend").status == .forbidden)
            let stranger = try await app.signedInBrowser(email: "s@example.com", nickname: "Stranger")
            try await stranger.get("/workspaces")
            #expect(try await stranger.post("/w/\(wid)/invitations/\(id)/revoke").status == .notFound)
            #expect(try await app.count("SELECT COUNT(*) FROM invites WHERE revoked_at IS NOT NULL") == 0)

            // Resend: seven days from now.
            app.clock.advance(by: 3 * 86_400)
            try await owner.get("/w/\(wid)/members")
            let resent = try await owner.post("/w/\(wid)/invitations/\(id)/resend")
            #expect(resent.status == .ok && resent.text.contains("The invitation to guest@example.com works for 7 more days."))
            let expires = try #require(try app.services.database.query { tx in try tx.invitations.invite(id: id) }).expiresAt
            #expect(abs(expires.timeIntervalSince(app.clock.wallClock.now()) - 7 * 86_400) < 1)

            // Revoke: the link is a 404, the list forgets it; another workspace's id is a 404 too.
            let revoked = try await owner.post("/w/\(wid)/invitations/\(id)/revoke")
            #expect(revoked.text.contains("The invitation to guest@example.com was revoked: its link no longer works."))
            #expect(!revoked.text.contains(#"<li data-invite="\#(id)">"#))
            #expect(try await app.browser().get(link).status == .notFound)
            #expect(try await owner.post("/w/\(wid)/invitations/\(id)/revoke").status == .notFound)
            let log = try await owner.get("/w/\(wid)/audit")
            #expect(log.text.contains("renewed an invitation") && log.text.contains("revoked an invitation"))
        }
    }

    @Test("a join link: anyone with an account joins in one click, within its expiry and use limit; reset and off end the old one")
    func joinLink() async throws {
        try await TestApp().run { app in
            let (owner, member, wid) = try await Self.owned(app)
            let page = try await owner.get("/w/\(wid)/members")
            #expect(page.text.contains("No join link yet"))
            // Only the owner makes one; a bad limit is a form error and nothing is made.
            #expect(try await member.post("/w/\(wid)/join-link", [("expires", "7d"), ("max_uses", "")]).status == .forbidden)
            let bad = try await owner.post("/w/\(wid)/join-link", [("expires", "7d"), ("max_uses", "0")])
            #expect(bad.status == .unprocessableContent && bad.text.contains("Uses must be a whole number from 1 to 10,000, or empty."))
            #expect(try await app.count("SELECT COUNT(*) FROM join_links") == 0)

            let made = try await owner.post("/w/\(wid)/join-link", [("expires", "1d"), ("max_uses", "3")])
            #expect(made.text.contains("The join link is ready.") && made.text.contains("Used 0 of 3 times"))
            let link = String(try #require(made.text.firstMatch(of: /value="http:\/\/localhost:\d+(\/join\/[A-Za-z0-9_-]{43})"/)).1)

            // Signed out: the page names the workspace and offers sign-up or log-in, back here after.
            let visitor = app.browser()
            let invitation = try await visitor.get(link)
            #expect(invitation.status == .ok && invitation.text.contains("<strong>Chat</strong>"))
            #expect(invitation.text.contains("Alice shared a link to join"))
            #expect(invitation.text.contains(#"href="/signup?next=\#(link)""#) && invitation.text.contains(#"href="/login?next=\#(link)""#))
            // Signing up from there ("sign up and join") joins: the first use.
            let viaSignup = app.browser()
            try await viaSignup.get("/signup?next=\(link)")
            let signedUp = try await viaSignup.post("/signup", [("email", "via-link@example.com"), ("nickname", "Via"), ("phone", ""),
                                                            ("password", "correct horse"), ("password_confirm", "correct horse"),
                                                            ("next", link)])
            #expect(signedUp.location == "/w/\(wid)")
            let newcomer = try await app.signedInBrowser(email: "new@example.com", nickname: "Newcomer")
            try await newcomer.get(link)
            let joined = try await newcomer.post(link)
            #expect(joined.status == .seeOther && joined.location == "/w/\(wid)")
            #expect(try await app.count("SELECT COUNT(*) FROM workspace_members WHERE workspace_id = ?", [wid]) == 4)
            // A member opening it again is told so, and uses nothing.
            #expect(try await newcomer.get(link).text.contains("You are already a member."))
            _ = try await newcomer.post(link)
            #expect(try await app.count("SELECT uses FROM join_links") == 2)
            // The third use is the last.
            let second = try await app.signedInBrowser(email: "second@example.com", nickname: "Second")
            try await second.get(link)
            #expect(try await second.post(link).status == .seeOther)
            let third = try await app.signedInBrowser(email: "third@example.com", nickname: "Third")
            #expect(try await third.get(link).status == .notFound)
            #expect(try await app.count("SELECT COUNT(*) FROM workspace_members WHERE workspace_id = ?", [wid]) == 5)

            // Reset: a new link; the old one is gone. Expiry: a day later it is gone too.
            try await owner.get("/w/\(wid)/members")
            let reset = try await owner.post("/w/\(wid)/join-link", [("expires", "1d"), ("max_uses", "")])
            let fresh = String(try #require(reset.text.firstMatch(of: /value="http:\/\/localhost:\d+(\/join\/[A-Za-z0-9_-]{43})"/)).1)
            #expect(fresh != link && reset.text.contains("Used 0 times"))
            #expect(try await third.get(link).status == .notFound)
            #expect(try await third.get(fresh).status == .ok)
            app.clock.advance(by: 86_401)
            #expect(try await third.get(fresh).status == .notFound)
            try await third.get("/workspaces")
            #expect(try await third.post(fresh).status == .notFound)
            // Off.
            let never = try await owner.post("/w/\(wid)/join-link", [("expires", "never"), ("max_uses", "")])
            let lasting = String(try #require(never.text.firstMatch(of: /value="http:\/\/localhost:\d+(\/join\/[A-Za-z0-9_-]{43})"/)).1)
            #expect(never.text.contains("Never expires"))
            #expect(try await owner.post("/w/\(wid)/join-link/disable").text.contains("The join link is off."))
            #expect(try await third.get(lasting).status == .notFound)
            #expect(try await owner.get("/w/\(wid)/audit").text.contains("by the join link"))
        }
    }
}
