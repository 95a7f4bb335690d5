import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import Views
@testable import wsx_web

@Suite("Members and invitations", .timeLimit(.minutes(5)))
struct MembersTests {
    @Test("inviting a member again says they are in already; nobody is added by an invitation")
    func inviteMember() async throws {
        try await TestApp().run { app in
            let owner = try await app.signedInBrowser(email: "o@example.com")
            let wid = try await owner.createWorkspace("Team")
            _ = try await app.signedInBrowser(email: "friend@example.com", nickname: "Friend")
            let invited = try await owner.invite("FRIEND@example.com", to: wid)
            #expect(invited.status == .ok)
            #expect(try await app.count("SELECT COUNT(*) FROM workspace_members") == 1)
            try await app.addMember(email: "friend@example.com", to: wid, by: owner)
            let f = try await app.userId("friend@example.com")
            #expect(try await app.count("SELECT COUNT(*) FROM room_members JOIN rooms ON rooms.id = room_id WHERE is_default = TRUE AND user_id = ?", [f]) == 1)
            let again = try await owner.invite("friend@example.com", to: wid)
            #expect(again.status == .unprocessableContent)
            #expect(again.text.contains("This person is already a member of this workspace."))
        }
    }

    @Test("an unknown email gets a single-use link that signs the person up and joins them")
    func inviteLinkSignsUp() async throws {
        try await TestApp().run { app in
            let owner = try await app.signedInBrowser(email: "o@example.com")
            let wid = try await owner.createWorkspace("Welcoming")
            let page = try await owner.invite("new@example.com", to: wid)
            let link = try #require(page.text.firstMatch(of: /<code id="invite-link">http:\/\/[^\/<]+(\/invite\/[A-Za-z0-9_-]+)<\/code>/)?.1)
            #expect(try await app.count("SELECT COUNT(*) FROM invites WHERE email = 'new@example.com'") == 1)

            let newcomer = app.browser()
            let form = try await newcomer.get(String(link))
            #expect(form.text.contains(#"value="new@example.com" readonly"#))
            let joined = try await newcomer.post(String(link), [("email", "other@example.com"), ("nickname", "Newbie"),
                                                                ("password", "password1"), ("password_confirm", "password1")])
            #expect(joined.location == "/w/\(wid)")
            #expect(try await newcomer.get("/w/\(wid)").text.contains("You joined the workspace."))
            // The invited address, whatever was posted.
            #expect(try await app.count("SELECT COUNT(*) FROM users WHERE email = 'new@example.com'") == 1)

            let reuse = try await app.browser().get(String(link))
            #expect(reuse.status == .notFound)
            #expect(reuse.text.contains("This invitation has expired or was already used."))
        }
    }

    @Test("invitation links expire after 7 days, and are only for the invited account")
    func inviteExpiryAndAccount() async throws {
        try await TestApp().run { app in
            let owner = try await app.signedInBrowser(email: "o@example.com")
            let wid = try await owner.createWorkspace("Team")
            let page = try await owner.invite("later@example.com", to: wid)
            let link = String(try #require(page.text.firstMatch(of: /(\/invite\/[A-Za-z0-9_-]+)</)?.1))

            let someoneElse = try await app.signedInBrowser(email: "else@example.com")
            let wrong = try await someoneElse.get(link)
            #expect(wrong.text.contains("This invitation was sent to another address."))
            let refused = try await someoneElse.post(link)
            #expect(refused.status == .forbidden)
            #expect(try await app.count("SELECT COUNT(*) FROM workspace_members") == 1)

            app.clock.advance(by: 7 * 24 * 60 * 60 + 1)
            #expect(try await app.browser().get(link).status == .notFound)
        }
    }

    @Test("an existing account accepts an invitation while signed in")
    func acceptSignedIn() async throws {
        try await TestApp().run { app in
            let owner = try await app.signedInBrowser(email: "o@example.com")
            let wid = try await owner.createWorkspace("Team")
            let page = try await owner.invite("late@example.com", to: wid)
            let link = String(try #require(page.text.firstMatch(of: /(\/invite\/[A-Za-z0-9_-]+)</)?.1))
            let late = try await app.signedInBrowser(email: "late@example.com")
            #expect(try await late.get(link).text.contains(#"id="accept-invite-form""#))
            #expect(try await late.post(link).location == "/w/\(wid)")
            #expect(try await app.count("SELECT COUNT(*) FROM workspace_members") == 2)
        }
    }

    @Test("removing a member takes them out of every room; their channels pass to the owner")
    func removeMember() async throws {
        try await TestApp().run { app in
            let owner = try await app.signedInBrowser(email: "o@example.com")
            let wid = try await owner.createWorkspace("Team")
            let member = try await app.signedInBrowser(email: "m@example.com", nickname: "Gone")
            try await app.addMember(email: "m@example.com", to: wid, by: owner)
            let cid = try await member.createChannel(in: wid, "theirs")
            let (o, m) = (try await app.userId("o@example.com"), try await app.userId("m@example.com"))

            try await owner.get("/w/\(wid)/members")
            let ask = try await owner.post("/w/\(wid)/members/\(m)/remove")
            #expect(ask.text.contains("Remove Gone from the workspace?"))
            #expect(try await app.count("SELECT COUNT(*) FROM workspace_members") == 2)
            let done = try await owner.confirm("/w/\(wid)/members/\(m)/remove")
            #expect(done.location == "/w/\(wid)/members")
            #expect(try await app.count("SELECT COUNT(*) FROM workspace_members WHERE user_id = ?", [m]) == 0)
            #expect(try await app.count("SELECT COUNT(*) FROM room_members WHERE user_id = ?", [m]) == 0)
            #expect(try await app.count("SELECT owner_id FROM rooms WHERE id = ?", [cid]) == Int(o))
            #expect(try await member.get("/w/\(wid)").status == .notFound)
            // They were told: an event for them, and one for the workspace.
            #expect(try await app.count("SELECT COUNT(*) FROM events WHERE type = 'workspace.member_removed' AND user_id = ?", [m]) == 1)
            #expect(try await app.count("SELECT COUNT(*) FROM events WHERE type = 'workspace.member_removed' AND room_id IS NOT NULL") == 1)
            // The owner cannot remove themself.
            try await owner.get("/w/\(wid)/members")
            #expect(try await owner.post("/w/\(wid)/members/\(o)/remove").status == .conflict)
        }
    }
}

@Suite("The people list scripts read", .timeLimit(.minutes(5)))
struct PeopleListTests {
    @Test("members get every member with profile and DM links; outsiders get a 404")
    func peopleForMembersOnly() async throws {
        try await TestApp().run { app in
            let owner = try await app.signedInBrowser(email: "o@example.com", nickname: "김민아")
            let wid = try await owner.createWorkspace("Team")
            _ = try await app.signedInBrowser(email: "mate@example.com", nickname: "박지수")
            try await app.addMember(email: "mate@example.com", to: wid, by: owner)
            let mate = try await app.userId("mate@example.com")

            let people = try await owner.get("/w/\(wid)/people")
            #expect(people.status == .ok)
            #expect(people.text.contains(#"{"dm":"/w/\#(wid)/dm/\#(mate)","id":\#(mate),"initials":"지수","nickname":"박지수","profile":"/users/\#(mate)","tone":\#(AvatarFace.tone(mate))}"#))
            #expect(people.text.contains(#""nickname":"김민아""#))

            let outsider = try await app.signedInBrowser(email: "out@example.com")
            #expect(try await outsider.get("/w/\(wid)/people").status == .notFound)
        }
    }
}
