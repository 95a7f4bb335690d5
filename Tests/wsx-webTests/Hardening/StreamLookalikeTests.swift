import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import wsx_web

/// Class: requests that look like the event stream but are not one. They are answered like any
/// other route (405 for a method the route does not take, 404 for a path it does not have), and
/// nothing is logged as an error.
@Suite("Event-stream look-alikes", .timeLimit(.minutes(5)))
struct StreamLookalikeTests {
    @Test("HEAD /events is a 405 and /events/, //events, /events// are 404s, signed in or not, without error logs")
    func lookalikes() async throws {
        try await TestApp().run(.live) { app in
            let member = try await app.signedInBrowser()
            for browser in [member, app.browser()] {
                let head = try await browser.send("/events", method: .head, headers: [:], body: nil)
                #expect(head.status == .methodNotAllowed)
                #expect(head.headers[.allow] == "GET")
                for path in ["/events/", "//events", "/events//", "/./events", "/events/x"] {
                    let response = try await browser.get(path)
                    #expect(response.status == .notFound, "\(path) answered \(response.status)")
                }
                let post = try await browser.post("/events")
                #expect(post.status == .notFound || post.status == .methodNotAllowed)
            }
            // The real thing still answers: a stream for the member, 401 for a stranger.
            #expect(try await app.browser().get("/events").status == .unauthorized)
            #expect(!app.logs.all.contains { $0.hasPrefix("error") })
        }
    }
}
