import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import wsx_web

/// Threads: replies kept out of the room (unless also sent there), the line under their root,
/// the thread's page, who follows it and what they have not read, a deleted root's placeholder,
/// replies acted on like messages, search, and the events every tab draws from.
@Suite("Threads", .timeLimit(.minutes(5)))
struct ThreadTests {
    /// Alice's root in #general, Bob in the workspace too.
    static func rooted(_ app: TestSession) async throws -> (a: TestBrowser, b: TestBrowser, wid: Int64, path: String, root: Int64) {
        let (a, b, wid, path, root) = try await ReactionTests.posted(app)
        return (a, b, wid, path, root)
    }

    @discardableResult
    static func reply(_ browser: TestBrowser, _ wid: Int64, _ mid: Int64, _ text: String, alsoInRoom: Bool = false,
                      json: Bool = false) async throws -> TestResponse {
        try await browser.get("/w/\(wid)/m/\(mid)/thread")
        var fields = [("content", text)]
        if alsoInRoom { fields.append(("also_channel", "1")) }
        return try await browser.post("/w/\(wid)/m/\(mid)/replies", fields, headers: json ? [.accept: "application/json"] : [:])
    }

    static func lastId(_ app: TestSession) async throws -> Int64 {
        Int64(try await app.count("SELECT MAX(id) FROM messages"))
    }

    static func payloads(_ app: TestSession, _ type: String) async throws -> [String] {
        try app.database.query { tx in
            try tx.inspection.rows("SELECT payload FROM events WHERE type = ? ORDER BY id", [type]).map { $0[0] }
        }
    }

    @Test("a reply lives in its thread: not in the room's page or unread count; the root gets its line; the thread lists both")
    func replyStaysInThread() async throws {
        try await TestApp().run { app in
            let (a, b, wid, path, root) = try await Self.rooted(app)
            let general = Int64(path.split(separator: "/").last!)!
            let answered = try await Self.reply(b, wid, root, "제가 **확인**할게요")
            let reply = try await Self.lastId(app)
            #expect(answered.status == .seeOther)
            #expect(answered.location == "/w/\(wid)/m/\(root)/thread#m-\(reply)")

            let aliceId = try await app.userId("a@example.com")
            #expect(try await app.services.messages.unreadCounts(workspaceId: wid, userId: aliceId)[general] == 0)
            let room = try await a.get(path)
            #expect(!room.text.contains("확인</strong>할게요"))
            #expect(room.text.contains(#"<a class="thread-summary" href="/w/\#(wid)/m/\#(root)/thread" data-thread="\#(root)">"#))
            #expect(room.text.contains(#"<span class="local-text" lang="en">1 reply</span>"#))
            #expect(room.text.contains(#"<span class="local-text" lang="ko">답글 1개</span>"#))
            #expect(room.text.contains(#"title="Bob" aria-hidden="true">B</span>"#))
            // Everyone may answer a message from the room: "Reply in thread" among its actions.
            #expect(room.shown.contains(#"<a href="/w/\#(wid)/m/\#(root)/thread" class="message-reply">Reply in thread</a>"#))

            let thread = try await a.get("/w/\(wid)/m/\(root)/thread")
            #expect(thread.status == .ok)
            let rootAt = try #require(thread.text.range(of: "회의는 3시입니다"))
            let divider = try #require(thread.text.range(of: #"<li class="thread-divider" id="thread-divider"><span>1 reply</span></li>"#))
            let replyAt = try #require(thread.text.range(of: "제가 <strong>확인</strong>할게요"))
            #expect(rootAt.upperBound < divider.lowerBound && divider.upperBound < replyAt.lowerBound)
            #expect(thread.text.contains(#"action="/w/\#(wid)/m/\#(root)/replies""#))
            #expect(thread.text.contains(#"<input type="checkbox" name="also_channel" value="1" id="also-channel"> Also send to the channel"#))
            #expect(thread.text.contains(#"href="\#(path)?around=\#(root)#m-\#(root)"><span aria-hidden="true">←</span> #general"#))
            // Inside the thread nobody is offered a thread of a thread.
            #expect(!thread.shown.contains("message-reply"))
            // A reply's own address is its thread's, at the reply.
            let viaReply = try await a.get("/w/\(wid)/m/\(reply)/thread")
            #expect(viaReply.location == "/w/\(wid)/m/\(root)/thread#m-\(reply)")
            // The room's paging knows nothing of it either.
            #expect(!(try await a.get(path + "?before=\(reply + 1)")).text.contains("확인</strong>"))
        }
    }

    @Test("also_channel=1 shows the reply in the room too, counted unread there, with the way to its thread")
    func replyAlsoInRoom() async throws {
        try await TestApp().run { app in
            let (a, b, wid, path, root) = try await Self.rooted(app)
            let general = Int64(path.split(separator: "/").last!)!
            try await Self.reply(b, wid, root, "모두 보세요", alsoInRoom: true)
            let reply = try await Self.lastId(app)
            let aliceId = try await app.userId("a@example.com")
            #expect(try await app.services.messages.unreadCounts(workspaceId: wid, userId: aliceId)[general] == 1)
            let room = try await a.get(path)
            #expect(room.text.contains("모두 보세요"))
            #expect(room.text.contains(#"<a class="reply-context" href="/w/\#(wid)/m/\#(root)/thread#m-\#(reply)">"#))
            #expect(try await a.get("/w/\(wid)/m/\(root)/thread").text.contains("모두 보세요"))
            let created = try await Self.payloads(app, "message.created").last ?? ""
            #expect(created.contains(#""inTimeline":true"#))
            #expect(created.contains(#""threadRootId":\#(root)"#))
        }
    }

    @Test("scripts get the reply as JSON; a repeat of its client id is the same reply; empty text is a 422 and nothing is stored")
    func replyAsJSON() async throws {
        try await TestApp().run { app in
            let (_, b, wid, _, root) = try await Self.rooted(app)
            try await b.get("/w/\(wid)/m/\(root)/thread")
            let headers: HTTPFields = [.accept: "application/json"]
            let fields = [("content", "좋아요"), ("client_id", "reply-client-0001")]
            let first = try await b.post("/w/\(wid)/m/\(root)/replies", fields, headers: headers)
            #expect(first.status == .created)
            let reply = try await Self.lastId(app)
            #expect(first.text.contains(#""id":\#(reply)"#))
            #expect(first.text.contains(#"<li class=\"message\" id=\"m-\#(reply)\""#))
            let again = try await b.post("/w/\(wid)/m/\(root)/replies", fields, headers: headers)
            #expect(again.status == .ok)
            #expect(try await app.count("SELECT COUNT(*) FROM messages WHERE thread_root_id = ?", [root]) == 1)
            let empty = try await b.post("/w/\(wid)/m/\(root)/replies", [("content", "  ")], headers: headers)
            #expect(empty.status == .unprocessableContent)
            #expect(try await app.count("SELECT COUNT(*) FROM messages") == 2)
            // Without a script, the thread again with the reason beside its composer.
            let page = try await b.post("/w/\(wid)/m/\(root)/replies", [("content", "")])
            #expect(page.status == .unprocessableContent)
            #expect(page.text.contains(#"data-thread-root="\#(root)""#))
            #expect(page.text.contains(#"<p class="field-error" id="composer-error">"#))
        }
    }

    @Test("a reply to a reply joins the same thread; a reply with files is one like a message's")
    func replyToReplyAndFiles() async throws {
        try await TestApp().run { app in
            let (a, b, wid, _, root) = try await Self.rooted(app)
            try await Self.reply(b, wid, root, "첫 답글")
            let first = try await Self.lastId(app)
            try await Self.reply(a, wid, first, "답글의 답글")
            #expect(try await app.count("SELECT COUNT(*) FROM messages WHERE thread_root_id = ?", [root]) == 2)
            try await a.get("/w/\(wid)/m/\(root)/thread")
            let upload = try await a.postMultipart("/w/\(wid)/m/\(root)/replies", [("content", "사진")],
                                                   files: [.init(filename: "사진.png", data: Fixture.data("image.png"), contentType: "image/png")])
            #expect(upload.status == .seeOther)
            let withFile = try await Self.lastId(app)
            #expect(try await app.count("SELECT COUNT(*) FROM message_files WHERE message_id = ?", [withFile]) == 1)
            #expect(try await a.get("/w/\(wid)/m/\(root)/thread").text.contains(#"alt="사진.png""#))
        }
    }

    @Test("followers: the root's author, repliers and people mentioned; their unread replies in the sidebar and the Threads view")
    func followersAndUnread() async throws {
        try await TestApp().run { app in
            let (a, b, wid, path, root) = try await Self.rooted(app)
            let c = try await app.signedInBrowser(email: "c@example.com", nickname: "민아")
            try await app.addMember(email: "c@example.com", to: wid, by: a)
            let d = try await app.signedInBrowser(email: "d@example.com", nickname: "Dan")
            try await app.addMember(email: "d@example.com", to: wid, by: a)
            try await Self.reply(b, wid, root, "@민아님 이것 좀 봐 주세요")
            let people = try await ["a", "b", "c", "d"].asyncMap { try await app.userId("\($0)@example.com") }
            let followers = try app.database.query { tx in try tx.threads.followers(rootId: root) }
            #expect(Set(followers) == Set(people.prefix(3)))
            #expect(try await Self.payloads(app, "message.created").last?.contains(#""followers":\#(people.prefix(3).sorted())"#
                .replacingOccurrences(of: " ", with: "")) == true)

            // Alice and Minah each have one unread reply: the sidebar says so, the Threads view lists it.
            let sidebar = try await a.get(path)
            #expect(sidebar.text.contains(#"<span class="badge" id="threads-unread" data-threads-unread>1</span>"#))
            let view = try await c.get("/w/\(wid)/threads")
            #expect(view.text.contains(#"<li class="card collection-item collection-unread">"#))
            #expect(view.text.contains("1 reply · 1 new reply"))
            #expect(view.text.contains(#"<a href="/w/\#(wid)/m/\#(root)/thread">Open thread</a>"#))
            #expect(try await d.get("/w/\(wid)/threads").text.contains(#"id="thread-list-empty""#))
            #expect(try await b.get(path).text.contains(#"data-threads-unread hidden>0</span>"#))

            // Reading the thread (its page's read) tells the reader's tabs the total left.
            try await a.read("/w/\(wid)/m/\(root)/thread")
            #expect(try await a.get(path).text.contains(#"data-threads-unread hidden>0</span>"#))
            let read = try #require(try await Self.payloads(app, "thread.read").last)
            #expect(read == #"{"mentionsTotal":0,"rootId":\#(root),"unreadTotal":0,"workspaceId":\#(wid)}"#)
            // Writing is reading: Bob's own reply is not unread for him; Alice's next one is.
            try await Self.reply(a, wid, root, "고마워요")
            #expect(try await app.count("SELECT unread_count FROM thread_follows WHERE user_id = ? AND root_id = ?", [people[1], root]) == 1)
            #expect(try await app.count("SELECT unread_count FROM thread_follows WHERE user_id = ? AND root_id = ?", [people[0], root]) == 0)

            // Unfollowing takes the thread off the view and the count; following again starts read.
            try await c.get("/w/\(wid)/m/\(root)/thread")
            try await c.post("/w/\(wid)/m/\(root)/thread/unfollow")
            #expect(!(try await c.get("/w/\(wid)/threads")).text.contains("collection-item"))
            try await d.get("/w/\(wid)/m/\(root)/thread")
            try await d.post("/w/\(wid)/m/\(root)/thread/follow")
            #expect(try await app.count("SELECT unread_count FROM thread_follows WHERE user_id = ?", [people[3]]) == 0)
            try await Self.reply(b, wid, root, "한 번 더")
            #expect(try await app.count("SELECT unread_count FROM thread_follows WHERE user_id = ?", [people[3]]) == 1)
        }
    }

    @Test("deleting a root with replies leaves a placeholder that keeps them; the last reply's deletion takes it away")
    func rootPlaceholder() async throws {
        try await TestApp().run { app in
            let (a, b, wid, path, root) = try await Self.rooted(app)
            try await ReactionTests.react(b, wid, root, "👍")
            try await Self.reply(b, wid, root, "답글입니다")
            let reply = try await Self.lastId(app)
            try await a.get(path)
            try await a.post("/w/\(wid)/m/\(root)/delete", [("confirm", "yes")])

            let room = try await b.get(path)
            #expect(room.text.contains(#"<li class="message message-deleted" id="m-\#(root)" data-message="\#(root)" data-author="0""#))
            #expect(room.text.contains(#"<span class="local-text" lang="en">This message was deleted.</span>"#))
            #expect(!room.text.contains("회의는 3시입니다"))
            #expect(room.text.contains(#"class="thread-summary""#))
            #expect(try await app.count("SELECT COUNT(*) FROM reactions") == 0)
            // Its text is gone from every event a reconnecting tab could replay, and from search.
            #expect(try await app.count("SELECT COUNT(*) FROM events WHERE payload LIKE '%회의는%'") == 0)
            #expect(!(try await b.get("/w/\(wid)/search?q=회의")).text.contains("회의는"))
            #expect(try await b.get("/w/\(wid)/m/\(root)/thread").text.contains("답글입니다"))
            // Nothing more happens to a placeholder.
            #expect(try await ReactionTests.react(b, wid, root, "👍").status == .notFound)
            #expect(try await Self.reply(b, wid, root, "아직 답할 수 있어요").status == .seeOther)
            let second = try await Self.lastId(app)

            try await b.get(path)
            try await b.post("/w/\(wid)/m/\(reply)/delete", [("confirm", "yes")])
            #expect(try await app.count("SELECT COUNT(*) FROM messages WHERE id = ?", [root]) == 1)
            let deleted = try await b.post("/w/\(wid)/m/\(second)/delete", [("confirm", "yes")])
            #expect(deleted.location == path)
            #expect(try await app.count("SELECT COUNT(*) FROM messages") == 0)
            #expect(try await Self.payloads(app, "message.deleted").contains { $0.contains(#""messageId":\#(root)"#) })
        }
    }

    @Test("replies are edited, deleted, reacted to and pinned like messages; their forms come back to the thread")
    func repliesAreMessages() async throws {
        try await TestApp().run { app in
            let (a, b, wid, _, root) = try await Self.rooted(app)
            try await Self.reply(b, wid, root, "처음 답글")
            let reply = try await Self.lastId(app)
            let thread = "/w/\(wid)/m/\(root)/thread"
            try await b.get(thread)
            let edited = try await b.post("/w/\(wid)/m/\(reply)/edit", [("content", "고친 답글")])
            #expect(edited.location == "\(thread)#m-\(reply)")
            #expect(try await b.get("/w/\(wid)/m/\(reply)/edit").location == "\(thread)?edit=\(reply)#m-\(reply)")
            let reacted = try await ReactionTests.react(a, wid, reply, "🎉")
            #expect(reacted.location == "\(thread)#m-\(reply)")
            let pinned = try await PinTests.mark(a, wid, reply, "pin", from: thread)
            #expect(pinned.location == thread)
            let page = try await a.get(thread)
            #expect(page.text.contains("고친 답글"))
            #expect(page.shown.contains(#"class="flag-pinned""#))
            #expect(page.text.contains(#"value="🎉""#))
            // The room's pins list it, and links to its thread.
            let general = try await app.count("SELECT room_id FROM messages WHERE id = ?", [root])
            #expect(try await a.get("/w/\(wid)/c/\(general)/pins").text.contains(#"href="\#(thread)#m-\#(reply)""#))
            // Deleting a reply redraws its root's line: no replies, no line.
            try await b.post("/w/\(wid)/m/\(reply)/delete", [("confirm", "yes")])
            let line = try #require(try await Self.payloads(app, "thread.updated").last)
            #expect(line == #"{"html":"","replyCount":0,"roomId":\#(general),"rootId":\#(root),"workspaceId":\#(wid)}"#)
            #expect(!(try await a.get("/w/\(wid)/c/\(general)")).text.contains("thread-summary"))
        }
    }

    @Test("replies are found by search and link to their thread; a mention in a reply is in the Mentions view")
    func searchAndMentions() async throws {
        try await TestApp().run { app in
            let (a, b, wid, _, root) = try await Self.rooted(app)
            try await Self.reply(b, wid, root, "@Alice 회의록은 여기 있어요")
            let reply = try await Self.lastId(app)
            let found = try await a.get("/w/\(wid)/search?q=회의록")
            #expect(found.text.contains(#"href="/w/\#(wid)/m/\#(root)/thread#m-\#(reply)""#))
            let mentions = try await a.get("/w/\(wid)/mentions")
            #expect(mentions.text.contains(#"href="/w/\#(wid)/m/\#(root)/thread#m-\#(reply)""#))
        }
    }

    @Test("events: a reply's message.created says its thread and followers, and the root's new line follows it")
    func replyEvents() async throws {
        try await TestApp().run { app in
            let (_, b, wid, path, root) = try await Self.rooted(app)
            let general = Int64(path.split(separator: "/").last!)!
            try await Self.reply(b, wid, root, "이벤트 확인")
            let created = try #require(try await Self.payloads(app, "message.created").last)
            #expect(created.contains(#""inTimeline":false"#))
            #expect(created.contains(#""threadRootId":\#(root)"#))
            #expect(created.contains(#""url":"/w/\#(wid)/m/\#(root)/thread#m-"#))
            let line = try #require(try await Self.payloads(app, "thread.updated").last)
            #expect(line.hasPrefix(#"{"html":"<a class=\"thread-summary\" href=\"/w/\#(wid)/m/\#(root)/thread\""#))
            #expect(line.hasSuffix(#""replyCount":1,"roomId":\#(general),"rootId":\#(root),"workspaceId":\#(wid)}"#))
            // A message of the room carries none of the thread's fields.
            let first = try #require(try await Self.payloads(app, "message.created").first)
            #expect(!first.contains("threadRootId") && !first.contains("inTimeline") && !first.contains("followers"))
        }
    }

    @Test("an archived channel's threads are read-only: a reply is a 409 and nothing is stored")
    func archivedThreads() async throws {
        try await TestApp().run { app in
            let (a, _, wid, _, _) = try await ReactionTests.posted(app)
            let cid = try await a.createChannel(in: wid, "지난일")
            try await MessagingTests.say(a, "/w/\(wid)/c/\(cid)", "보관 전")
            let root = try await Self.lastId(app)
            try await a.post("/w/\(wid)/c/\(cid)/archive", [("confirm", "yes")])
            let refused = try await Self.reply(a, wid, root, "늦은 답글", json: true)
            #expect(refused.status == .conflict)
            #expect(try await app.count("SELECT COUNT(*) FROM messages WHERE thread_root_id = ?", [root]) == 0)
            let page = try await a.get("/w/\(wid)/m/\(root)/thread")
            #expect(page.status == .ok)
            #expect(page.text.contains(#"id="archived-notice""#))
            #expect(!page.text.contains(#"id="composer""#))
        }
    }

    @Test("the thread's panel is framed by this site alone; every other page by nobody")
    func panelFraming() async throws {
        try await TestApp().run { app in
            let (a, _, wid, path, root) = try await Self.rooted(app)
            let panel = try await a.get("/w/\(wid)/m/\(root)/thread?panel=1")
            #expect(panel.headers[HTTPField.Name("X-Frame-Options")!] == "SAMEORIGIN")
            #expect(panel.headers[.contentSecurityPolicy]?.contains("frame-ancestors 'self'") == true)
            #expect(panel.text.contains(#"<body class="signed-in embedded">"#))
            #expect(panel.text.contains(#"<base target="_top">"#))
            #expect(!panel.text.contains(#"id="sidebar""#))
            let page = try await a.get(path)
            #expect(page.headers[HTTPField.Name("X-Frame-Options")!] == "DENY")
            #expect(page.headers[.contentSecurityPolicy]?.contains("frame-ancestors 'none'") == true)
        }
    }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var values: [T] = []
        for element in self { values.append(try await transform(element)) }
        return values
    }
}
