import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import Views
@testable import wsx_web

/// Pages and sessions answered from memory while the database is unchanged: they must never show
/// anything a fresh render would not.
@Suite("Rendered pages kept between commits", .timeLimit(.minutes(5)))
struct RenderedPageTests {
    @Test("posts leave the channels kept; renaming, creating, joining and leaving channels do not")
    func membershipVersion() async throws {
        // SQLite's regions see which columns a commit changed; PostgreSQL's count whole tables
        // (a post changes `room_members`' unread counts), so there posts renew the lists too.
        try await TestApp.sqlite().run { app in
            let (a, b, wid, general) = try await MessagingTests.team(app)
            let path = "/w/\(wid)/c/\(general)"
            let version = try #require(app.database.regions.region(named: "channel views"))
            try await b.get(path)
            try await b.get(path)
            let start = version.version
            _ = try await MessagingTests.say(a, path, "unread counts and read markers move")
            _ = try await MessagingTests.say(b, path, "and again")
            #expect(version.version == start)

            try await a.get("/w/\(wid)/c/\(general)/settings")
            #expect(try await a.post("/w/\(wid)/c/\(general)/settings", [("name", "lobby"), ("description", "")]).status == .seeOther)
            #expect(version.version > start)
            let renamed = version.version
            #expect(try await b.get(path).text.contains("lobby"))

            let side = try await a.createChannel(in: wid, "side")
            let sidePath = "/w/\(wid)/c/\(side)"
            let created = version.version
            #expect(created > renamed)
            try await b.get(sidePath)
            #expect(try await b.post(sidePath + "/join").status == .seeOther)
            #expect(version.version > created)
            #expect(try await MessagingTests.say(b, sidePath, "joined").status == .seeOther)
            let joined = version.version
            #expect(try await b.confirm(sidePath + "/leave").status == .seeOther)
            #expect(version.version > joined)
            #expect(try await b.post(sidePath + "/messages", [("content", "after leaving")]).status == .notFound)
        }
    }

    @Test("someone removed from a workspace cannot post in it on their very next request")
    func removalIsImmediate() async throws {
        try await TestApp().run { app in
            let (a, b, wid, general) = try await MessagingTests.team(app)
            let path = "/w/\(wid)/c/\(general)"
            #expect(try await MessagingTests.say(b, path, "still here").status == .seeOther)
            #expect(try await b.get("/w/\(wid)").status == .ok)
            #expect(try await b.get("/w/\(wid)/unread").status == .ok)
            let bob = try await app.userId("b@example.com")
            #expect(try await a.confirm("/w/\(wid)/members/\(bob)/remove").status == .seeOther)
            #expect(try await b.post(path + "/messages", [("content", "gone")]).status == .notFound)
            #expect(try await b.get(path).status == .notFound)
            #expect(try await b.get("/w/\(wid)/unread").status == .notFound)
            #expect(try await b.get("/w/\(wid)").status == .notFound)
        }
    }

    @Test("a reload is served from memory; a teammate's post shows on the next load")
    func servedUntilACommit() async throws {
        try await TestApp().run { app in
            let (a, b, wid, general) = try await MessagingTests.team(app)
            let path = "/w/\(wid)/c/\(general)"
            _ = try await MessagingTests.say(a, path, "first")
            // The first load marks the message read (a commit); the page after it can be kept.
            try await b.get(path)
            let first = try await b.get(path)
            let again = try await b.get(path)
            #expect(again.status == .ok)
            #expect(again.text == first.text)
            #expect(again.headers[RenderedPage.reusableMarker] == nil)
            #expect(app.services.renderedPages.count == 1)

            _ = try await MessagingTests.say(a, path, "second, after the page was kept")
            let after = try await b.get(path)
            #expect(after.text.contains("second, after the page was kept"))
            #expect(after.text != first.text)
        }
    }

    @Test("a workspace home's rooms are read once, and a teammate's post or a rename shows on the next look")
    func homeKeptUntilItChanges() async throws {
        try await TestApp().run { app in
            let (a, b, wid, general) = try await MessagingTests.team(app)
            let home = "/w/\(wid)", path = "/w/\(wid)/c/\(general)"
            _ = try await MessagingTests.say(a, path, "first news")
            for query in ["", "?again", "?once-more"] {
                #expect(try await b.get(home + query).text.contains(#"data-unread-count="1""#))
            }
            #expect(app.services.homes.kept.count == 1)

            _ = try await MessagingTests.say(a, path, "second news")
            let after = try await b.get(home + "?after-post").text
            #expect(after.contains(#"data-unread-count="2""#))
            try await a.get("/w/\(wid)/c/\(general)/settings")
            #expect(try await a.post("/w/\(wid)/c/\(general)/settings", [("name", "lobby"), ("description", "")]).status == .seeOther)
            #expect(try await b.get(home + "?after-rename").text.contains(">lobby<"))
        }
    }

    @Test("a kept page is not served to a session that logged out, nor with a one-time notice")
    func sessionsAndNotices() async throws {
        try await TestApp().run { app in
            let (a, _, wid, general) = try await MessagingTests.team(app)
            let path = "/w/\(wid)/c/\(general)"
            let cookie = try #require(a.cookies[CookiePolicy.session])
            #expect(try await a.get(path).status == .ok)
            #expect(try await a.get(path).status == .ok)
            #expect(app.services.renderedPages.count == 1)

            // A notice left by the previous response belongs to the page that shows it.
            let notice = try #require(Lang.en.strings.table["channel_saved"])
            a.setCookie(CookiePolicy.flash, "channel_saved")
            #expect(try await a.get(path).text.contains(notice))
            #expect(try await a.get(path).text.contains(notice) == false)

            // A script's read in the background between a redirect and its page leaves the
            // notice for the page (it once took it, and "You left the workspace." never showed).
            a.setCookie(CookiePolicy.flash, "channel_saved")
            let background = try await a.get(path, headers: [.init("Sec-Fetch-Dest")!: "empty"])
            #expect(background.text.contains(notice) == false)
            #expect(a.cookies[CookiePolicy.flash] == "channel_saved")
            #expect(try await a.get(path, headers: [.init("Sec-Fetch-Dest")!: "document"]).text.contains(notice))
            #expect(a.cookies[CookiePolicy.flash] == nil)

            #expect(try await a.post("/logout").status == .seeOther)
            a.setCookie(CookiePolicy.session, cookie)
            let ended = try await a.get(path)
            #expect(ended.status == .seeOther)
            #expect(ended.location?.hasPrefix("/login") == true)
        }
    }
}
