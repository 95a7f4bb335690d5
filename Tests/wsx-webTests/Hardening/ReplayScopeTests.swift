import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import wsx_web

/// Class: replay handing out what may no longer be read. `Last-Event-ID` replays stored events
/// for days; deleted and pre-edit text is scrubbed from them, and a member's replay of a room
/// starts where they joined it. What migration 010 does to an older database is SQLite's own
/// test (`SQLite/ReplayScopeMigrationTests.swift`).
@Suite("Replay scope", .timeLimit(.minutes(5)))
struct ReplayScopeTests {
    /// Everything `browser`'s stream replays from `lastEventId`, up to a marker sent to its user.
    static func replayed(_ app: TestSession, _ browser: TestBrowser, email: String, from lastEventId: Int64) async throws
        -> [ReceivedEvent] {
        let user = try await app.userId(email)
        try await RealtimeTests.publish(app, RealtimeTests.note("replay-end", to: .user(user), type: .userUpdated))
        return try await EventStreamClient.connect(port: app.client.port!,
                                                   headers: RealtimeTests.headers(browser, lastEventId: "\(lastEventId)")) { reader in
            var seen: [ReceivedEvent] = []
            while let event = try await reader.next() {
                if event.data.contains("replay-end") { break }
                seen.append(event)
            }
            return seen
        }
    }

    static func newestMessage(_ app: TestSession) async throws -> Int64 {
        Int64(try await app.count("SELECT MAX(id) FROM messages"))
    }

    @Test("deleted messages and the words before an edit are gone from replay and from the outbox: channel, DM, deleted channel")
    func scrubbed() async throws {
        try await TestApp().run(.live) { app in
            let (a, b, wid, general) = try await MessagingTests.team(app)
            let start = try await app.settledEventId()
            let path = "/w/\(wid)/c/\(general)"
            _ = try await MessagingTests.say(a, path, "secret first draft")
            let edited = try await Self.newestMessage(app)
            _ = try await MessagingTests.say(a, path, "posted by mistake")
            let deleted = try await Self.newestMessage(app)
            #expect(try await a.post("/w/\(wid)/m/\(edited)/edit", [("content", "second draft")]).status == .seeOther)
            #expect(try await a.post("/w/\(wid)/m/\(edited)/edit", [("content", "final words")]).status == .seeOther)
            #expect(try await a.post("/w/\(wid)/m/\(deleted)/delete", [("confirm", "yes")]).status == .seeOther)
            // In a DM, with a file, the same.
            let bId = try await app.userId("b@example.com")
            try await a.get("/w/\(wid)/dm/\(bId)")
            #expect(try await a.postMultipart("/w/\(wid)/dm/\(bId)/messages", [("content", "private regret")],
                                              files: [.init(filename: "비밀.pdf", data: Fixture.data("doc.pdf"))]).status == .seeOther)
            let dm = try await Self.newestMessage(app)
            try await a.get("/w/\(wid)/dm/\(bId)")
            #expect(try await a.post("/w/\(wid)/m/\(dm)/delete", [("confirm", "yes")]).status == .seeOther)
            // A channel deleted with its messages.
            let doomed = try await a.createChannel(in: wid, "doomed")
            _ = try await MessagingTests.say(a, "/w/\(wid)/c/\(doomed)", "said in a doomed channel")
            #expect(try await a.confirm("/w/\(wid)/c/\(doomed)/delete").status == .seeOther)

            let events = try await Self.replayed(app, b, email: "b@example.com", from: start)
            let text = events.map(\.data).joined(separator: "\n")
            for gone in ["secret first draft", "second draft", "posted by mistake", "private regret", "비밀.pdf",
                         "said in a doomed channel"] {
                #expect(!text.contains(gone), "replay still carries \(gone)")
                #expect(try await app.count("SELECT COUNT(*) FROM events WHERE payload LIKE ?", ["%\(gone)%"]) == 0,
                        "the outbox still holds \(gone)")
            }
            // The edited message replays as it reads now, from its creation on.
            // (PostgreSQL writes a rewritten payload back with a space after each colon.)
            let created = try #require(events.first {
                $0.type == "message.created" && $0.data.contains(try! Regex("\"messageId\": ?\(edited)[,}]"))
            })
            #expect(created.data.contains("final words"))
            #expect(events.contains { $0.type == "message.deleted" && $0.data.contains("\"messageId\":\(deleted)") })
            #expect(events.contains { $0.type == "message.deleted" && $0.data.contains("\"messageId\":\(dm)") })
        }
    }

    @Test("a member's replay of a room starts where they joined it: a channel joined late, a workspace joined late")
    func startsAtJoining() async throws {
        try await TestApp().run(.live) { app in
            let (a, _, wid, general) = try await MessagingTests.team(app)
            _ = try await MessagingTests.say(a, "/w/\(wid)/c/\(general)", "general before carol")
            let later = try await a.createChannel(in: wid, "later")
            _ = try await MessagingTests.say(a, "/w/\(wid)/c/\(later)", "before carol joined")
            let carol = try await app.signedInBrowser(email: "carol@example.com", nickname: "Carol")
            try await app.addMember(email: "carol@example.com", to: wid, by: a)
            try await carol.get("/w/\(wid)/c/\(later)")
            #expect(try await carol.post("/w/\(wid)/c/\(later)/join").status == .seeOther)
            _ = try await MessagingTests.say(a, "/w/\(wid)/c/\(later)", "after carol joined")
            _ = try await MessagingTests.say(a, "/w/\(wid)/c/\(general)", "general after carol")

            let text = try await Self.replayed(app, carol, email: "carol@example.com", from: 0).map(\.data).joined(separator: "\n")
            #expect(text.contains("after carol joined"))
            #expect(text.contains("general after carol"))
            #expect(!text.contains("before carol joined"))
            #expect(!text.contains("general before carol"))
            // The page still shows the history: joining is reading it.
            #expect(try await carol.get("/w/\(wid)/c/\(later)").text.contains("before carol joined"))
        }
    }

    @Test("someone removed and invited back is in their DMs again: listed, live, their own messages editable")
    func rejoiningRestoresDirectMessages() async throws {
        try await TestApp().run(.live) { app in
            let (a, b, wid, _) = try await MessagingTests.team(app)
            let (aId, bId) = (try await app.userId("a@example.com"), try await app.userId("b@example.com"))
            try await b.get("/w/\(wid)/dm/\(aId)")
            #expect(try await b.post("/w/\(wid)/dm/\(aId)/messages", [("content", "from bob, before")]).status == .seeOther)
            let old = try await Self.newestMessage(app)
            #expect(try await a.confirm("/w/\(wid)/members/\(bId)/remove").status == .seeOther)
            #expect(try await b.get("/w/\(wid)/dm/\(aId)").status == .notFound)
            try await app.addMember(email: "b@example.com", to: wid, by: a)

            let home = try await b.get("/w/\(wid)")
            #expect(home.text.contains("/w/\(wid)/dm/\(aId)"), "the DM is missing from the sidebar")
            #expect(try await app.count("SELECT COUNT(*) FROM room_members JOIN rooms ON rooms.id = room_id WHERE kind = 'dm' AND user_id = ?",
                                        [bId]) == 1)
            try await b.get("/w/\(wid)/dm/\(aId)")
            #expect(try await b.post("/w/\(wid)/m/\(old)/edit", [("content", "from bob, edited after coming back")]).status == .seeOther)
            let since = try await app.settledEventId()
            try await a.get("/w/\(wid)/dm/\(bId)")
            #expect(try await a.post("/w/\(wid)/dm/\(bId)/messages", [("content", "welcome back")]).status == .seeOther)
            let live = try await Self.replayed(app, b, email: "b@example.com", from: since)
            #expect(live.contains { $0.type == "message.created" && $0.data.contains("welcome back") })
            try await b.get("/w/\(wid)/dm/\(aId)")
            #expect(try await b.post("/w/\(wid)/m/\(old)/delete", [("confirm", "yes")]).status == .seeOther)
        }
    }
}
