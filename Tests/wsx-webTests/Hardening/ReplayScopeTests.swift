import Foundation
import GRDB
import Testing
@testable import wsx_web

/// Class: replay handing out what may no longer be read. `Last-Event-ID` replays stored events
/// for days; deleted and pre-edit text is scrubbed from them, and a member's replay of a room
/// starts where they joined it.
@Suite("Replay scope")
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
            let created = try #require(events.first { $0.type == "message.created" && $0.data.contains("\"messageId\":\(edited)") })
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

/// The same, for a database written by an older version: migration 010 scrubs what it left in
/// the outbox and puts removed-and-returned members back in their DMs.
@Suite("Replay scope: older databases")
struct ReplayScopeMigrationTests {
    @Test("migrating drops deleted messages' events and words before an edit, sets replay floors and restores DMs")
    func migratesOldOutbox() throws {
        let queue = try DatabaseQueue()
        try AppDatabase.migrator.migrate(queue, upTo: "009-unread-counters")
        try queue.write { db in
            let t = "2026-11-01 10:00:00.000", later = "2026-11-02 10:00:00.000"
            try db.execute(sql: """
                INSERT INTO users (id, email, email_key, nickname, password_hash, created_at, updated_at)
                    VALUES (1, 'a@x', 'a@x', 'A', 'h', '\(t)', '\(t)'), (2, 'b@x', 'b@x', 'B', 'h', '\(t)', '\(t)');
                INSERT INTO workspaces (id, name, name_key, owner_id, created_at, updated_at) VALUES (1, 'W', 'w', 1, '\(t)', '\(t)');
                INSERT INTO workspace_members VALUES (1, 1, 'owner', '\(t)'), (1, 2, 'member', '\(later)');
                INSERT INTO rooms (id, workspace_id, kind, is_default, dm_key, created_at, updated_at)
                    VALUES (1, 1, 'channel', 1, NULL, '\(t)', '\(t)'), (2, 1, 'dm', 0, '1:2', '\(t)', '\(t)');
                INSERT INTO room_members (room_id, user_id, joined_at, last_read_message_id)
                    VALUES (1, 1, '\(t)', 0), (1, 2, '\(later)', 0), (2, 1, '\(t)', 0);
                INSERT INTO messages (id, room_id, author_id, body, body_html, created_at, edited_at)
                    VALUES (5, 1, 1, 'kept words', 'kept words', '\(t)', '\(later)');
                INSERT INTO events (id, type, room_id, payload, created_at) VALUES
                    (1, 'message.created', 1, '{"messageId":4,"html":"deleted words"}', '\(t)'),
                    (2, 'message.created', 1, '{"messageId":5,"html":"first words"}', '\(t)'),
                    (3, 'message.updated', 1, '{"messageId":5,"html":"kept words"}', '\(later)'),
                    (4, 'message.deleted', 1, '{"messageId":4}', '\(later)');
                """)
        }
        try AppDatabase.migrator.migrate(queue)
        let (payloads, messages, floors, dmMembers) = try queue.read { db in
            (try String.fetchAll(db, sql: "SELECT payload FROM events ORDER BY id"),
             try Int64.fetchAll(db, sql: "SELECT message_id FROM events ORDER BY id"),
             try Int64.fetchAll(db, sql: "SELECT joined_after_event FROM room_members WHERE room_id = 1 ORDER BY user_id"),
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM room_members WHERE room_id = 2"))
        }
        #expect(payloads == [#"{"messageId":5,"html":"kept words"}"#, #"{"messageId":4}"#])
        #expect(messages == [5, 4])
        // B joined the workspace after the first events: their floor is the newest before.
        #expect(floors == [0, 2])
        // B is back in the DM with A.
        #expect(dmMembers == 2)
    }
}
