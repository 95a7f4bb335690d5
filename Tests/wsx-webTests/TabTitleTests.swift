import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
@testable import wsx_web

/// The tab says how much is unread, in its title and its icon.
@Suite("Tab title and icon", .timeLimit(.minutes(5)))
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

    @Test("a workspace page's title starts with its badges' numbers, and its icon has the dot for any unread room; none, no count")
    func unreadCountInTitle() async throws {
        try await TestApp().run { app in
            let (a, b, wid, general) = try await MessagingTests.team(app)
            let quiet = try await b.get("/w/\(wid)").text
            #expect(quiet.contains("<title>Chat · wsx</title>"))
            #expect(quiet.contains(#"<link rel="icon" type="image/svg+xml" href="/static/favicon.svg?v="#))
            // Plain channel messages at the default level make the room bold, not a number.
            for text in ["one", "two", "three"] { _ = try await MessagingTests.say(a, "/w/\(wid)/c/\(general)", text) }
            let bold = try await b.get("/w/\(wid)").text
            #expect(bold.contains("<title>Chat · wsx</title>"))
            #expect(bold.contains(#"<link rel="icon" type="image/svg+xml" href="/static/favicon-unread.svg?v="#))
            _ = try await MessagingTests.say(a, "/w/\(wid)/c/\(general)", "@Bob 확인 부탁해요")
            let home = try await b.get("/w/\(wid)").text
            #expect(home.contains("<title>(1) Chat · wsx</title>"))
            // Outside a workspace there is no count.
            #expect(!(try await b.get("/profile").text.contains("<title>(")))
        }
    }
}
