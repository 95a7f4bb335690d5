import Foundation
import Testing
@testable import wsx_web

/// The tab says how much is unread, in its title and its icon.
@Suite("Tab title and icon")
struct TabTitleTests {
    @Test("/favicon.ico is an icon; every page links the icon")
    func favicon() async throws {
        try await TestApp().run { app in
            let icon = try await app.browser().get("/favicon.ico")
            #expect(icon.status == .ok)
            #expect(icon.headers[.contentType] == "image/x-icon")
            #expect(Array(icon.body.readableBytesView.prefix(4)) == [0, 0, 1, 0])
            let login = try await app.browser().get("/login")
            #expect(login.text.contains(#"<link rel="icon" type="image/svg+xml" href="/static/favicon.svg?v="#))
        }
    }

    @Test("a workspace page's title starts with the workspace's unread count, and its icon has the dot; none, no count")
    func unreadCountInTitle() async throws {
        try await TestApp().run { app in
            let (a, b, wid, general) = try await MessagingTests.team(app)
            let quiet = try await b.get("/w/\(wid)").text
            #expect(quiet.contains("<title>Chat · wsx</title>"))
            for text in ["one", "two", "three"] { _ = try await MessagingTests.say(a, "/w/\(wid)/c/\(general)", text) }
            let home = try await b.get("/w/\(wid)").text
            #expect(home.contains("<title>(3) Chat · wsx</title>"))
            #expect(home.contains(#"<link rel="icon" type="image/svg+xml" href="/static/favicon-unread.svg?v="#))
            // Outside a workspace there is no count.
            #expect(!(try await b.get("/profile").text.contains("<title>(")))
        }
    }
}
