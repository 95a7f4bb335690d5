import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import wsx_web

/// Group conversations: 3 to 9 workspace members, started from the people picker (the same
/// people find the same group again), with a DM's page, composer, read marker, notifications and
/// pins; anyone in one adds people (who read its history) or leaves; nobody else can see it.
@Suite("Group conversations", .timeLimit(.minutes(5)))
struct GroupConversationTests {
    /// Alice owns the workspace; Bob, Carol and Dave are members. Alice starts a group with Bob
    /// and Carol and says something in it.
    static func setUp(_ app: TestSession)
        async throws -> (a: TestBrowser, b: TestBrowser, c: TestBrowser, d: TestBrowser, wid: Int64, rid: Int64) {
        let (a, b, wid, _) = try await MessagingTests.team(app)
        let c = try await app.signedInBrowser(email: "c@example.com", nickname: "Carol")
        try await app.addMember(email: "c@example.com", to: wid, by: a)
        let d = try await app.signedInBrowser(email: "d@example.com", nickname: "Dave")
        try await app.addMember(email: "d@example.com", to: wid, by: a)
        try await a.get("/w/\(wid)/dm")
        let (bob, carol) = (try await app.userId("b@example.com"), try await app.userId("c@example.com"))
        let started = try await a.post("/w/\(wid)/dm", [("member", String(bob)), ("member", String(carol))])
        #expect(started.status == .seeOther)
        let location = try #require(started.location)
        #expect(location.hasPrefix("/w/\(wid)/g/"))
        let rid = try #require(Int64(location.split(separator: "/").last ?? ""))
        try await MessagingTests.say(a, "/w/\(wid)/g/\(rid)", "회의록 공유드려요")
        return (a, b, c, d, wid, rid)
    }

    static func members(_ app: TestSession, _ rid: Int64) async throws -> [Int64] {
        try app.database.query { tx in try tx.rooms.memberIds(roomId: rid).sorted() }
    }

    static func key(_ app: TestSession, _ rid: Int64) async throws -> String? {
        try app.database.query { tx in try tx.rooms.room(id: rid)?.dmKey }
    }

    @Test("starting: the picker lists the others; the same people (in any order, by anyone of them) find the same group")
    func startAndReuse() async throws {
        try await TestApp().run { app in
            let (a, b, _, _, wid, rid) = try await Self.setUp(app)
            let (alice, bob, carol) = (try await app.userId("a@example.com"), try await app.userId("b@example.com"),
                                       try await app.userId("c@example.com"))
            let picker = try await a.get("/w/\(wid)/dm")
            #expect(picker.status == .ok)
            #expect(picker.text.contains(#"name="member" value="\#(bob)""#))
            #expect(!picker.text.contains(#"name="member" value="\#(alice)""#))
            #expect(try await Self.members(app, rid) == [alice, bob, carol].sorted())
            #expect(try await Self.key(app, rid) == [alice, bob, carol].sorted().map(String.init).joined(separator: ":"))
            // Bob, naming Alice and Carol (and himself), reaches the same room.
            try await b.get("/w/\(wid)/dm")
            let again = try await b.post("/w/\(wid)/dm", [("member", String(carol)), ("member", String(alice)), ("member", String(bob))])
            #expect(again.location == "/w/\(wid)/g/\(rid)")
            #expect(try await app.count("SELECT COUNT(*) FROM rooms WHERE kind = 'group'") == 1)
            // One person is their DM.
            let direct = try await a.post("/w/\(wid)/dm", [("member", String(bob))])
            #expect(direct.location == "/w/\(wid)/dm/\(bob)")
            // The room's creation was announced to its three members.
            #expect(try await app.count("SELECT COUNT(*) FROM events WHERE type = 'room.created' AND room_id = ?", [rid]) == 1)
        }
    }

    @Test("refused choices come back on the picker with the reason, 422, nothing made")
    func refusals() async throws {
        try await TestApp().run { app in
            let (a, _, _, _, wid, _) = try await Self.setUp(app)
            let stranger = try await app.signedInBrowser(email: "s@example.com", nickname: "Stranger")
            _ = stranger
            let (bob, outsider) = (try await app.userId("b@example.com"), try await app.userId("s@example.com"))
            let before = try await app.workspaceSnapshot()
            try await a.get("/w/\(wid)/dm")
            let none = try await a.post("/w/\(wid)/dm", [])
            #expect(none.status == .unprocessableContent)
            #expect(none.text.contains("Choose at least one person."))
            let tooMany = try await a.post("/w/\(wid)/dm", (1...9).map { ("member", String(9000 + $0)) })
            #expect(tooMany.status == .unprocessableContent)
            #expect(tooMany.text.contains("A group holds at most 9 people, you included."))
            let notMember = try await a.post("/w/\(wid)/dm", [("member", String(bob)), ("member", String(outsider))])
            #expect(notMember.status == .unprocessableContent)
            #expect(notMember.text.contains("Only members of this workspace can join a conversation."))
            // What was chosen stays ticked.
            #expect(notMember.text.contains(#"value="\#(bob)" checked"#))
            #expect(try await a.post("/w/\(wid)/dm", [("member", "bob")]).status == .badRequest)
            #expect(try await app.workspaceSnapshot() == before)
        }
    }

    @Test("its page, messages, unread count, read marker, notify level, pins and typing work as a DM's do")
    func conversation() async throws {
        try await TestApp().run { app in
            let (_, b, c, _, wid, rid) = try await Self.setUp(app)
            let path = "/w/\(wid)/g/\(rid)"
            // Carol's sidebar lists it by the others' names, with one unread message.
            let home = try await c.get("/w/\(wid)")
            #expect(home.text.contains(#"href="\#(path)" data-unread-count="1" data-mention-count="0" data-room-link="\#(rid)" data-group="yes""#))
            #expect(home.text.contains("Alice, Bob"))
            #expect(try await app.count("SELECT unread_count FROM room_members WHERE room_id = ? AND user_id = ?",
                                        [rid, try await app.userId("c@example.com")]) == 1)
            let page = try await b.get(path)
            #expect(page.status == .ok)
            #expect(page.text.contains("<title>Alice, Carol"))
            #expect(page.text.contains("회의록 공유드려요"))
            #expect(page.text.contains(#"data-kind="group""#))
            #expect(page.text.contains("3 members"))
            // Bob answers; the event takes the people it notifies to the group's page.
            let answer = try await MessagingTests.say(b, path, "확인했습니다")
            let mid = try await app.count("SELECT MAX(id) FROM messages")
            #expect(answer.location == "\(path)#m-\(mid)")
            let payload = try app.database.query { tx in
                try tx.inspection.rows("SELECT payload FROM events WHERE type = 'message.created' AND message_id = ?", [mid]).first?.first
            }
            #expect(payload?.contains(#""roomKind":"group""#) == true)
            #expect(payload?.contains(#""url":"\#(path)""#) == true)
            #expect(try await c.post(path + "/read", [("message_id", String(mid))]).status == .seeOther)
            #expect(try await app.count("SELECT unread_count FROM room_members WHERE room_id = ? AND user_id = ?",
                                        [rid, try await app.userId("c@example.com")]) == 0)
            #expect(try await c.post(path + "/notify", [("level", "mute")]).status == .seeOther)
            #expect(try await app.count("SELECT COUNT(*) FROM room_members WHERE room_id = ? AND notify_level = 'mute'", [rid]) == 1)
            #expect(try await c.post("/w/\(wid)/m/\(mid)/pin").status == .seeOther)
            #expect(try await c.get(path + "/pins").text.contains("확인했습니다"))
            #expect(try await c.post(path + "/typing").status == .noContent)
            // Search finds it, named for the reader, and leads into the group.
            let found = try await c.get("/w/\(wid)/search?q=확인")
            #expect(found.text.contains("\(path)?around=\(mid)") || found.text.contains(path))
        }
    }

    @Test("outside the group it does not exist: every route a 404 and nothing changes")
    func outsiders() async throws {
        try await TestApp().run { app in
            let (a, _, _, d, wid, rid) = try await Self.setUp(app)
            let stranger = try await app.signedInBrowser(email: "s@example.com", nickname: "Stranger")
            let path = "/w/\(wid)/g/\(rid)"
            let mid = try await app.count("SELECT MAX(id) FROM messages")
            #expect(!(try await d.get("/w/\(wid)")).text.contains(path))
            let before = try await app.workspaceSnapshot()
            for outsider in [d, stranger] {
                for page in [path, path + "/pins", "/w/\(wid)/m/\(mid)/reactions"] {
                    #expect(try await outsider.get(page).status == .notFound, "\(page)")
                }
                try await outsider.get("/workspaces")
                for (route, fields) in [(path + "/messages", [("content", "엿보기")]), (path + "/read", []),
                                        (path + "/notify", [("level", "all")]), (path + "/members", [("member", "4")]),
                                        (path + "/leave", [("confirm", "yes")]), (path + "/typing", []),
                                        ("/w/\(wid)/m/\(mid)/pin", [])] {
                    #expect(try await outsider.post(route, fields).status == .notFound, "\(route)")
                }
            }
            #expect(try await app.workspaceSnapshot() == before)
            #expect(try await app.count("SELECT COUNT(*) FROM messages") == mid)
            // A group id used as another kind of room is not found either.
            #expect(try await a.get("/w/\(wid)/c/\(rid)").status == .notFound)
        }
    }

    @Test("anyone in it adds a workspace member, who reads the history; a tenth is refused")
    func addPeople() async throws {
        try await TestApp().run { app in
            let (a, b, c, d, wid, rid) = try await Self.setUp(app)
            let path = "/w/\(wid)/g/\(rid)"
            let dave = try await app.userId("d@example.com")
            let page = try await c.get(path)
            #expect(page.text.contains(#"<option value="\#(dave)">Dave</option>"#))
            let added = try await c.post(path + "/members", [("member", String(dave))])
            #expect(added.location == path)
            let seen = try await d.get(path)
            #expect(seen.status == .ok)
            #expect(seen.text.contains("회의록 공유드려요"))
            #expect(try await d.get("/w/\(wid)").text.contains("Alice, Bob, Carol"))
            #expect(try await Self.members(app, rid).count == 4)
            #expect(try await Self.key(app, rid)?.split(separator: ":").count == 4)
            #expect(try await app.count("SELECT COUNT(*) FROM events WHERE type = 'room.member_added' AND room_id = ?", [rid]) == 1)
            // The three who started it now find a new group of their own.
            try await a.get("/w/\(wid)/dm")
            let three = try await a.post("/w/\(wid)/dm", [("member", String(try await app.userId("b@example.com"))),
                                                          ("member", String(try await app.userId("c@example.com")))])
            #expect(three.location != path)
            // Five more people fill it to nine; the next is refused and nothing changes.
            let extra: [Int64] = try await app.database.write { tx in
                let joined = Date(timeIntervalSince1970: 1_793_491_200) // 2026-11-01 00:00:00 UTC
                return try (1...6).map { n in
                    let person = try tx.accounts.insert(User(email: "p\(n)@example.com", emailKey: "p\(n)@example.com",
                                                             nickname: "Person \(n)", phone: nil, passwordHash: "x", lang: nil,
                                                             createdAt: joined, updatedAt: joined))
                    let id = person.id!
                    try tx.workspaces.addMember(workspaceId: wid, userId: id, role: .member, joinedAt: joined)
                    return id
                }
            }
            try await b.get(path)
            for person in extra.prefix(5) {
                #expect(try await b.post(path + "/members", [("member", String(person))]).status == .seeOther)
            }
            #expect(try await Self.members(app, rid).count == 9)
            #expect(!(try await b.get(path)).text.contains("group-add-form"))
            let before = try await app.workspaceSnapshot()
            let full = try await b.post(path + "/members", [("member", String(extra[5]))])
            #expect(full.status == .conflict)
            #expect(full.text.contains("9"))
            #expect(try await app.workspaceSnapshot() == before)
        }
    }

    @Test("leaving asks first, then takes the person out; the others keep the group and its messages")
    func leave() async throws {
        try await TestApp().run { app in
            let (a, b, _, _, wid, rid) = try await Self.setUp(app)
            let path = "/w/\(wid)/g/\(rid)"
            try await b.get(path)
            let asked = try await b.post(path + "/leave")
            #expect(asked.status == .ok)
            #expect(asked.text.contains("Leave the conversation with Alice, Carol?"))
            #expect(try await Self.members(app, rid).count == 3)
            let left = try await b.confirm(path + "/leave")
            #expect(left.location == "/w/\(wid)")
            #expect(try await b.get(path).status == .notFound)
            #expect(!(try await b.get("/w/\(wid)")).text.contains(path))
            #expect(try await a.get(path).text.contains("회의록 공유드려요"))
            #expect(try await Self.members(app, rid).count == 2)
            #expect(try await Self.key(app, rid) == [try await app.userId("a@example.com"), try await app.userId("c@example.com")]
                .sorted().map(String.init).joined(separator: ":"))
            #expect(try await app.count("SELECT COUNT(*) FROM events WHERE type = 'room.member_removed' AND room_id = ?", [rid]) == 1)
        }
    }

    @Test("someone removed from the workspace leaves its groups")
    func removedFromWorkspace() async throws {
        try await TestApp().run { app in
            let (a, _, _, _, wid, rid) = try await Self.setUp(app)
            let carol = try await app.userId("c@example.com")
            try await a.get("/w/\(wid)/members")
            _ = try await a.confirm("/w/\(wid)/members/\(carol)/remove")
            #expect(try await !Self.members(app, rid).contains(carol))
            #expect(try await Self.key(app, rid)?.contains(String(carol)) == false)
        }
    }
}
