import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import Views
@testable import wsx_web

/// Mentions: matching the room's nicknames the way Koreans write them, the groups, who is
/// recorded as mentioned and told, the Mentions view, and the question before telling a large
/// room.
@Suite("Mentions", .timeLimit(.minutes(5)))
struct MentionTests {
    static let members = MentionDirectory(["민아": 1, "김민아": 2, "김민": 3, "Bob": 4, "Kim Mina": 5, "Kim": 6, "bobby": 7])

    static func html(_ text: String) -> String { MessageHTML.render(text, members: members).html }
    static func span(_ id: Int64, _ name: String) -> String { #"<span class="mention" data-user="\#(id)">@\#(name)</span>"# }

    @Test("a nickname followed straight by Korean is a mention; the longest nickname wins; Latin words do not end early")
    func koreanAfterNames() {
        #expect(Self.html("@민아님 확인") == Self.span(1, "민아") + "님 확인")
        #expect(Self.html("@Bob님 확인 부탁드려요") == Self.span(4, "Bob") + "님 확인 부탁드려요")
        #expect(Self.html("@김민아씨") == Self.span(2, "김민아") + "씨")
        #expect(Self.html("@민아야!") == Self.span(1, "민아") + "야!")
        #expect(Self.html("@Kim Mina 안녕") == Self.span(5, "Kim Mina") + " 안녕")
        #expect(Self.html("@Kim Minsu") == Self.span(6, "Kim") + " Minsu")
        // Case does not matter; the text stays as typed.
        #expect(Self.html("@bob, @BOBBY.") == Self.span(4, "bob") + ", " + Self.span(7, "BOBBY") + ".")
        // Inside a Latin word it is not a mention of a shorter name.
        #expect(Self.html("@Bobcat @Kimchi") == "@Bobcat @Kimchi")
        #expect(MessageHTML.render("@민아님 @김민아씨 @Bob님", members: Self.members).mentioned == [1, 2, 4])
    }

    @Test("a given name mentions its one holder in the workspace, with or without 님; a shared one stays text; a nickname wins")
    func givenNames() {
        #expect(KoreanNames.givenName(of: "김민아") == "민아")
        #expect(KoreanNames.givenName(of: "남궁민수") == "궁민수")
        #expect(KoreanNames.givenName(of: "김민") == "민")
        #expect(KoreanNames.givenName(of: "민") == nil)
        #expect(KoreanNames.givenName(of: "김 민아") == nil)
        #expect(KoreanNames.givenName(of: "Mina") == nil)
        #expect(KoreanNames.givenName(of: "\u{1100}\u{1175}\u{11B7}\u{1106}\u{1175}\u{11AB}\u{110B}\u{1161}") == "민아") // NFD 김민아

        // 김민아 (1) and 박서준 (2) are in the room; 이서준 (3) is only in the workspace.
        let room: [String: Int64] = ["김민아": 1, "박서준": 2, "이진": 4]
        let workspace: [Int64: String] = [1: "김민아", 2: "박서준", 3: "이서준", 4: "이진"]
        let given = KoreanNames.givenNames(of: room, workspace: workspace)
        #expect(given == ["민아": 1, "진": 4])   // 서준 is two people's: nobody's
        let members = MentionDirectory(room, givenNames: given)
        let render = { (text: String) in MessageHTML.render(text, members: members) }
        #expect(render("@민아님 확인 부탁드려요").html == Self.span(1, "민아") + "님 확인 부탁드려요")
        #expect(render("@민아 확인").mentioned == [1])
        #expect(render("@김민아님").mentioned == [1])
        #expect(render("@민아에게 전달").mentioned == [1])
        #expect(render("@서준님 @서준").html == "@서준님 @서준")
        #expect(render("@박서준님").mentioned == [2])
        // A one-syllable given name only before 님, 씨, a space or punctuation.
        #expect(render("@진님, @진 씨 @진.").mentioned == [4])
        #expect(render("@진수 @진행").mentioned.isEmpty)
        // Someone whose whole nickname is 민아 makes it theirs, and 김민아's given name ambiguous.
        let both = KoreanNames.givenNames(of: ["김민아": 1, "민아": 5], workspace: [1: "김민아", 5: "민아"])
        #expect(both["민아"] == nil)
        #expect(MessageHTML.render("@민아님", members: MentionDirectory(["김민아": 1, "민아": 5], givenNames: both)).mentioned == [5])
    }

    @Test("in a room, @민아님 mentions 김민아 when she is the workspace's only 민아, and stays text when 이민아 joins")
    func givenNamesInARoom() async throws {
        try await TestApp().run { app in
            let owner = try await app.signedInBrowser(email: "a@example.com", nickname: "박서준")
            let wid = try await owner.createWorkspace("팀")
            _ = try await app.signedInBrowser(email: "m@example.com", nickname: "김민아")
            try await app.addMember(email: "m@example.com", to: wid, by: owner)
            let general = Int64(try await app.count("SELECT id FROM rooms WHERE workspace_id = ? AND is_default = TRUE", [wid]))
            let path = "/w/\(wid)/c/\(general)"
            let mina = try await app.userId("m@example.com")
            try await MessagingTests.say(owner, path, "@민아님 회의록 확인 부탁드려요")
            let first = try await app.count("SELECT MAX(id) FROM messages")
            #expect(try await app.count("SELECT COUNT(*) FROM mentions WHERE user_id = ? AND message_id = ?", [mina, first]) == 1)
            #expect(try await owner.get(path).text.contains(Self.span(mina, "민아") + "님 회의록"))

            // 이민아 joins the workspace: 민아 is no longer one person.
            _ = try await app.signedInBrowser(email: "l@example.com", nickname: "이민아")
            try await app.addMember(email: "l@example.com", to: wid, by: owner)
            try await MessagingTests.say(owner, path, "@민아님 다시 확인")
            let second = try await app.count("SELECT MAX(id) FROM messages")
            #expect(try await app.count("SELECT COUNT(*) FROM mentions WHERE message_id = ?", [second]) == 0)
            #expect(try await owner.get(path).text.contains("@민아님 다시 확인"))
            // The whole nickname still mentions her.
            try await MessagingTests.say(owner, path, "@김민아님 다시 확인")
            let third = try await app.count("SELECT MAX(id) FROM messages")
            #expect(try await app.count("SELECT COUNT(*) FROM mentions WHERE user_id = ? AND message_id = ?", [mina, third]) == 1)
        }
    }

    @Test("@here, @channel and @all (and @여기, @채널, @모두) are group mentions; a member's own nickname wins")
    func groups() {
        let rendered = MessageHTML.render("@here @channel님 @all, @모두 확인", members: Self.members)
        #expect(rendered.groups == [.here, .channel, .all])
        #expect(rendered.html == #"<span class="mention" data-user="here">@here</span> <span class="mention" data-user="channel">@channel</span>님 <span class="mention" data-user="all">@all</span>, <span class="mention" data-user="all">@모두</span> 확인"#)
        #expect(MessageHTML.render("@hereby `@all`", members: .none).groups.isEmpty)
        let named = MessageHTML.render("@all", members: MentionDirectory(["All": 9]))
        #expect(named.mentioned == [9] && named.groups.isEmpty)
    }

    @Test("a long run of @ and names renders in time linear in its length")
    func linear() {
        let text = String(repeating: "@Kim Min ", count: 600) + String(repeating: "@김민아 ", count: 600)
        let rendered = MessageHTML.render(text, members: Self.members)
        #expect(rendered.mentioned == [6, 2])
        #expect(rendered.html.components(separatedBy: #"class="mention""#).count == 1201)
    }

    @Test("the mentions of earlier messages are read from their HTML when the table is made")
    func backfill() {
        #expect(AppDatabase.mentionedIds(inHTML: Self.span(12, "a") + " x " + Self.span(7, "b") + #"<span class="mention" data-user="all">@all</span>"#)
                == [12, 7])
    }

    @Test("a post records and tells whom it mentions, room members only; the Mentions view lists it, newest first")
    func recordedAndListed() async throws {
        try await TestApp().run { app in
            let (a, b, wid, general) = try await MessagingTests.team(app)
            let path = "/w/\(wid)/c/\(general)"
            let carol = try await app.signedInBrowser(email: "c@example.com", nickname: "Carol")
            try await app.addMember(email: "c@example.com", to: wid, by: a)
            let quiet = try await a.createChannel(in: wid, "quiet")
            let bob = try await app.userId("b@example.com")

            try await MessagingTests.say(a, path, "@Bob님 확인 부탁드려요")
            let first = try await app.count("SELECT MAX(id) FROM messages")
            #expect(try await app.count("SELECT COUNT(*) FROM mentions WHERE user_id = ? AND message_id = ?", [bob, first]) == 1)
            let payload = try app.database.query { tx in
                try tx.inspection.rows("SELECT payload FROM events WHERE type = 'message.created' ORDER BY id DESC LIMIT 1", []).first?.first
            }
            #expect(payload?.contains(#""mentions":[\#(bob)]"#) == true)

            // Carol is in the workspace but not in #quiet: there, her name is only text.
            try await MessagingTests.say(a, "/w/\(wid)/c/\(quiet)", "@Carol 여기 봐요")
            #expect(try await app.count("SELECT COUNT(*) FROM mentions") == 1)
            #expect(try await a.get("/w/\(wid)/c/\(quiet)").text.contains("@Carol 여기 봐요"))

            try await MessagingTests.say(a, path, "@channel 공지입니다")
            let second = try await app.count("SELECT MAX(id) FROM messages")
            #expect(try await app.count("SELECT COUNT(*) FROM mentions WHERE message_id = ?", [second]) == 2) // Bob, Carol; not Alice

            let view = try await b.get("/w/\(wid)/mentions")
            #expect(view.status == .ok)
            #expect(view.text.contains("<h1>Mentions</h1>"))
            let newer = try #require(view.text.range(of: "공지입니다")), older = try #require(view.text.range(of: "확인 부탁드려요"))
            #expect(newer.lowerBound < older.lowerBound)
            #expect(view.text.contains(#"<a href="\#(path)?around=\#(first)#m-\#(first)">Go to the message</a>"#))
            #expect(view.text.contains(#"<a href="\#(path)">#general</a> · <strong>Alice</strong>"#))
            #expect(try await a.get("/w/\(wid)/mentions").text.contains("No one has mentioned you yet."))
            #expect(try await carol.get("/w/\(wid)/mentions").text.contains("공지입니다"))
            // The sidebar links to it.
            #expect(view.text.contains(#"<a class="sidebar-action sidebar-mentions" href="/w/\#(wid)/mentions" id="sidebar-mentions">Mentions<span class="badge" id="mentions-unread""#))
            // A stranger gets the workspace's 404.
            let stranger = try await app.signedInBrowser(email: "s@example.com")
            #expect(try await stranger.get("/w/\(wid)/mentions").status == .notFound)
        }
    }

    @Test("editing changes whom a message mentions, without telling anyone again")
    func editing() async throws {
        try await TestApp().run { app in
            let (a, _, wid, general) = try await MessagingTests.team(app)
            let path = "/w/\(wid)/c/\(general)"
            try await MessagingTests.say(a, path, "@Bob 봐 주세요")
            let mid = try await app.count("SELECT MAX(id) FROM messages")
            #expect(try await app.count("SELECT COUNT(*) FROM mentions") == 1)
            try await a.post("/w/\(wid)/m/\(mid)/edit", [("content", "혼잣말입니다")])
            #expect(try await app.count("SELECT COUNT(*) FROM mentions") == 0)
            try await a.post("/w/\(wid)/m/\(mid)/edit", [("content", "@Alice @Bob 다시")])
            #expect(try await app.count("SELECT COUNT(*) FROM mentions") == 1) // never the author
        }
    }

    @Test("@here tells the room's members with the app open, and no one else")
    func here() async throws {
        try await TestApp().run(.live) { app in
            let (a, b, wid, general) = try await MessagingTests.team(app)
            try await app.signedInBrowser(email: "c@example.com", nickname: "Carol")
            try await app.addMember(email: "c@example.com", to: wid, by: a)
            let path = "/w/\(wid)/c/\(general)"
            let bob = try await app.userId("b@example.com")
            try await EventStreamClient.connect(port: app.client.port!, headers: ["Cookie": b.cookieHeader]) { reader in
                _ = try await reader.readHead()
                // The stream counts once the hub has it.
                for _ in 0..<200 where await !app.services.hub.onlineMembers(ofRoom: general).contains(bob) {
                    try await Task.sleep(for: .milliseconds(10))
                }
                try await MessagingTests.say(a, path, "@here 회의 시작합니다")
                var mentioned: String?
                while mentioned == nil, let event = try await reader.next() {
                    if event.type == "message.created" { mentioned = event.data }
                }
                #expect(mentioned?.contains(#""mentions":[\#(bob)]"#) == true)
            }
            let mid = try await app.count("SELECT MAX(id) FROM messages")
            #expect(try await app.count("SELECT user_id FROM mentions WHERE message_id = ?", [mid]) == Int(bob))
            #expect(try await app.count("SELECT COUNT(*) FROM mentions WHERE message_id = ?", [mid]) == 1)
        }
    }

    @Test("in a room of more than 50, @channel asks first: JSON says so (409), the page keeps the text; confirmed, it goes")
    func largeRoomsAsk() async throws {
        try await TestApp().run { app in
            let (a, _, wid, general) = try await MessagingTests.team(app)
            try await app.database.write { tx in
                let now = Date()
                for n in 1...50 {
                    let person = try tx.accounts.insert(User(email: "crowd\(n)@example.com", emailKey: "crowd\(n)@example.com",
                                                             nickname: "Crowd \(n)", phone: nil, passwordHash: "x", lang: nil,
                                                             createdAt: now, updatedAt: now))
                    let id = person.id!
                    try tx.workspaces.addMember(workspaceId: wid, userId: id, role: .member, joinedAt: now)
                    try tx.rooms.addMember(roomId: general, userId: id, joinedAt: now, lastReadMessageId: 0)
                }
            }
            let path = "/w/\(wid)/c/\(general)"
            try await a.get(path)
            let asked = try await a.post(path + "/messages", [("content", "@channel 전체 공지")], headers: [.accept: "application/json"])
            #expect(asked.status == .conflict)
            #expect(asked.text == #"{"confirm":"This notifies all 52 people in this room. Send it?"}"#)
            #expect(try await app.count("SELECT COUNT(*) FROM messages") == 0)

            let page = try await a.post(path + "/messages", [("content", "@channel 전체 공지")])
            #expect(page.status == .conflict)
            #expect(page.text.contains(#"<input type="hidden" name="confirm_mentions" value="yes">"#))
            #expect(page.text.contains(">@channel 전체 공지</textarea>"))
            #expect(page.text.contains("This notifies all 52 people in this room. Send it?"))
            #expect(try await app.count("SELECT COUNT(*) FROM messages") == 0)

            // A plain message or a named mention does not ask.
            #expect(try await a.post(path + "/messages", [("content", "@Bob 안녕")]).status == .seeOther)
            let sent = try await a.post(path + "/messages", [("content", "@channel 전체 공지"), ("confirm_mentions", "yes")])
            #expect(sent.status == .seeOther)
            let mid = try await app.count("SELECT MAX(id) FROM messages")
            #expect(try await app.count("SELECT COUNT(*) FROM mentions WHERE message_id = ?", [mid]) == 51)
        }
    }
}
