import Foundation
import Testing
@testable import wsx_web

/// Read receipts in DMs and groups (KakaoWork's "1"): each message says how many of the others
/// have not read it yet, counted from the members' markers; channels have none.
@Suite("Read receipts", .timeLimit(.minutes(5)))
struct ReadReceiptTests {
    /// The receipt on message `id` of a page (nil: none).
    static func receipt(_ html: String, _ id: Int64) -> Int? {
        guard let start = html.range(of: #"id="m-\#(id)""#),
              let end = html[start.upperBound...].range(of: "</li>") else { return nil }
        let message = html[start.upperBound..<end.lowerBound]
        guard let match = message.firstMatch(of: /<span class="receipt" data-receipt>(\d+)<span class="visually-hidden">/) else { return nil }
        return Int(match.1)
    }

    @Test("a group's message says 2, then 1, then nothing as its two others read it; the markers reach the page and the room")
    func groupReceiptsFall() async throws {
        try await TestApp().run { app in
            let (a, b, c, _, wid, rid) = try await GroupConversationTests.setUp(app)
            let path = "/w/\(wid)/g/\(rid)"
            let message = try await ThreadTests.lastId(app)
            let first = try await a.get(path).text
            #expect(Self.receipt(first, message) == 2)
            #expect(first.contains(#"<span class="receipt" data-receipt>2<span class="visually-hidden"> not read yet</span></span>"#))
            #expect(first.contains(#"data-receipts="{&quot;"#))
            // The script clones its receipts from the page's template.
            #expect(first.contains(#"<template id="tpl-receipt"><span class="receipt" data-receipt>0"#))

            try await b.read(path)
            #expect(Self.receipt(try await a.get(path).text, message) == 1)
            let moved = try await ThreadTests.payloads(app, "room.receipts")
            let bob = try await app.userId("b@example.com")
            #expect(moved.contains { $0.contains(#""userId":\#(bob)"#) && $0.contains(#""lastRead":\#(message)"#) })

            // Carol's view reads it off, and her page already counts her as having read it.
            try await c.read(path)
            #expect(Self.receipt(try await a.get(path).text, message) == nil)
            #expect(Self.receipt(try await c.get(path).text, message) == nil)

            // A reply from Carol is unread by Alice and Bob.
            try await MessagingTests.say(c, path, "확인했어요")
            let reply = try await ThreadTests.lastId(app)
            #expect(Self.receipt(try await c.get(path).text, reply) == 2)
        }
    }

    @Test("a DM's message says 1 until the other person opens the conversation; channels show no receipts")
    func directMessagesAndChannels() async throws {
        try await TestApp().run { app in
            let (a, b, wid, general) = try await MessagingTests.team(app)
            let (alice, bob) = (try await app.userId("a@example.com"), try await app.userId("b@example.com"))
            try await MessagingTests.say(a, "/w/\(wid)/dm/\(bob)", "점심 같이 해요")
            let message = try await ThreadTests.lastId(app)
            #expect(Self.receipt(try await a.get("/w/\(wid)/dm/\(bob)").text, message) == 1)
            try await b.read("/w/\(wid)/dm/\(alice)")
            #expect(Self.receipt(try await a.get("/w/\(wid)/dm/\(bob)").text, message) == nil)

            try await MessagingTests.say(a, "/w/\(wid)/c/\(general)", "채널 글")
            let channel = try await a.get("/w/\(wid)/c/\(general)").text
            #expect(!channel.contains(#"data-receipts="#))
            #expect(!channel.contains(#"<span class="receipt" data-receipt>1"#))
        }
    }
}
