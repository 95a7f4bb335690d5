import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import Views
@testable import wsx_web

/// What a room's page reads once and keeps (which messages a page lists, the sidebar's lists)
/// must never hide a change: every test first has the reads kept, then changes something the
/// page shows, and expects the very next load to show it.
@Suite("Reads kept for room pages", .timeLimit(.minutes(5)))
struct KeptReadsTests {
    @Test("a room's page shows an edit, a deletion and an author's new name on the next load")
    func messagesChangeOnTheNextLoad() async throws {
        try await TestApp().run { app in
            let (a, b, wid, general) = try await MessagingTests.team(app)
            let path = "/w/\(wid)/c/\(general)"
            _ = try await MessagingTests.say(a, path, "first words")
            _ = try await MessagingTests.say(a, path, "second words")
            let first = try await app.count("SELECT id FROM messages WHERE body = 'first words'")
            let second = try await app.count("SELECT id FROM messages WHERE body = 'second words'")
            try await b.get(path)
            #expect(try await b.get(path).text.contains("second words"))
            #expect(app.services.messages.keptPages.count == 1)

            try await a.get(path)
            #expect(try await a.post("/w/\(wid)/m/\(first)/edit", [("content", "first words, edited")]).status == .seeOther)
            #expect(try await b.get(path).text.contains("first words, edited"))

            #expect(try await a.post("/w/\(wid)/m/\(second)/delete", [("confirm", "yes")]).status == .seeOther)
            #expect(try await b.get(path).text.contains("second words") == false)

            try await a.get("/profile")
            #expect(try await a.post("/profile", [("nickname", "Alicia"), ("phone", "")]).status == .seeOther)
            let alicia = try await app.userId("a@example.com")
            #expect(try await b.get(path).text.contains(#"<a class="message-author" href="/users/\#(alicia)">Alicia</a>"#))
            #expect(app.services.messages.keptPages.count == 1)
        }
    }

    @Test("the unread line sits before a teammate's new messages, though the reader's markers were kept")
    func unreadLineAfterNewMessages() async throws {
        try await TestApp().run { app in
            let (a, b, wid, general) = try await MessagingTests.team(app)
            let path = "/w/\(wid)/c/\(general)"
            _ = try await MessagingTests.say(a, path, "read already")
            try await b.read(path)
            let quiet = try await b.get(path).text
            #expect(quiet.contains("unread-line") == false)
            #expect(app.services.messages.markers.kept.count >= 1)

            _ = try await MessagingTests.say(a, path, "new for Bob")
            let page = try await b.read(path).text
            let line = try #require(page.range(of: #"<li class="unread-line""#))
            let old = try #require(page.range(of: "read already")), new = try #require(page.range(of: "new for Bob"))
            #expect(old.lowerBound < line.lowerBound && line.lowerBound < new.lowerBound)
            // That view's read (the script's POST) read them: the next one has no line.
            #expect(try await b.get(path).text.contains("unread-line") == false)
        }
    }

    @Test("the edit form of a message shows its text when the rest of the page comes from memory")
    func editFormHasTheText() async throws {
        try await TestApp().run { app in
            let (a, _, wid, general) = try await MessagingTests.team(app)
            let path = "/w/\(wid)/c/\(general)"
            _ = try await MessagingTests.say(a, path, "words to <fix>")
            let id = try await app.count("SELECT id FROM messages WHERE body = 'words to <fix>'")
            try await a.get(path + "?around=\(id)")
            let form = try await a.get(path + "?around=\(id)&edit=\(id)")
            #expect(form.text.contains(">words to &lt;fix&gt;</textarea>"))
        }
    }

    @Test("a message's controls are in each session's language, and its edit form carries the session's own CSRF token")
    func controlsPerSession() async throws {
        try await TestApp().run { app in
            let (a, _, wid, general) = try await MessagingTests.team(app)
            let path = "/w/\(wid)/c/\(general)"
            _ = try await MessagingTests.say(a, path, "mine")
            let id = try await app.count("SELECT id FROM messages WHERE body = 'mine'")
            func deleteLink(_ label: String) -> String { #"<a href="/w/\#(wid)/m/\#(id)/delete" class="message-delete">\#(label)</a>"# }
            func editForm(_ page: String) throws -> Substring {
                let form = try #require(page.firstRange(of: #"action="/w/\#(wid)/m/\#(id)/edit""#))
                return page[form.upperBound...].prefix(200)
            }
            let english = try #require(Lang.en.strings.table["message_delete"])
            #expect(try await a.get(path).text.contains(deleteLink(english)))
            #expect(try editForm(try await a.get(path + "?edit=\(id)").text).contains(#"name="_csrf" value="\#(try #require(a.csrfToken))""#))

            // The same person signed in a second time: another session, with its own token.
            let again = app.browser(acceptLanguage: "ko-KR,ko;q=0.9")
            #expect(try await again.logIn(email: "a@example.com", password: "correct horse").status == .seeOther)
            let korean = try #require(Lang.ko.strings.table["message_delete"])
            #expect(try await again.get(path).text.contains(deleteLink(korean)))
            let secondToken = try #require(again.csrfToken)
            #expect(secondToken != a.csrfToken)
            #expect(try editForm(try await again.get(path + "?edit=\(id)").text).contains(#"name="_csrf" value="\#(secondToken)""#))
            #expect(try await a.get(path).text.contains(deleteLink(english)))
        }
    }

    @Test("the sidebar shows a teammate's new post at once, and a DM partner's new name")
    func sidebarCountsAndNames() async throws {
        try await TestApp().run { app in
            let (a, b, wid, general) = try await MessagingTests.team(app)
            let side = try await a.createChannel(in: wid, "side")
            let sidePath = "/w/\(wid)/c/\(side)"
            try await b.get(sidePath)
            #expect(try await b.post(sidePath + "/join").status == .seeOther)
            let alice = try await app.userId("a@example.com")
            let dmPath = "/w/\(wid)/dm/\(alice)"
            _ = try await MessagingTests.say(b, dmPath, "hello Alice")
            let generalPath = "/w/\(wid)/c/\(general)"
            try await b.get(generalPath)
            let before = try await b.get(generalPath).text
            #expect(before.contains(#"data-unread="\#(side)" hidden>0</span>"#))
            #expect(before.contains(#"href="\#(dmPath)" data-unread-count="0" data-mention-count="0" data-room-link"#))
            #expect(app.services.pages.sidebar.keptLists.count >= 1)

            _ = try await MessagingTests.say(a, sidePath, "ping")
            // At the default level a plain message makes the room bold, counted on its link.
            #expect(try await b.get(generalPath).text.contains(
                #"<li class="room-item unread"><a href="\#(sidePath)" data-unread-count="1" data-mention-count="0""#))

            try await a.get("/profile")
            #expect(try await a.post("/profile", [("nickname", "Alicia"), ("phone", "")]).status == .seeOther)
            let renamed = try await b.get(generalPath).text
            let dmLink = try #require(renamed.firstRange(of: #"href="\#(dmPath)""#))
            #expect(renamed[dmLink.upperBound...].prefix(300).contains(#"<span class="room-name">Alicia <span class="user-status""#))
        }
    }

    @Test("a teammate's post leaves a reader's sidebar lists in memory: only the counts, which it moved, are read again")
    func sidebarListsOutlivePosts() async throws {
        try await TestApp().run { app in
            let (a, b, wid, general) = try await MessagingTests.team(app)
            let generalPath = "/w/\(wid)/c/\(general)"
            // Twice: the first read of a region's statements teaches it and is not kept.
            for _ in 1...2 { try await b.get(generalPath) }
            let bob = try await app.userId("b@example.com"), lists = app.services.pages.sidebar.keptLists
            let key = SidebarSource.Key(userId: bob, workspaceId: wid)
            #expect(lists.value(for: key) != nil)
            _ = try await MessagingTests.say(a, generalPath, "새 소식")
            _ = try await app.settledEventId()
            // PostgreSQL's regions are whole tables: a post changes `room_members` (the counts).
            if app.database.postgres == nil { #expect(lists.value(for: key) != nil, "kept through the post") }
            let page = try await b.get("/w/\(wid)").text
            #expect(page.contains(#"href="\#(generalPath)" data-unread-count="1""#))
        }
    }

    @Test("a workspace home shows a new message, a partner's new name and the workspace's new name on the next load, each viewer in their language")
    func homeChangesOnTheNextLoad() async throws {
        try await TestApp().run { app in
            let (a, b, wid, _) = try await MessagingTests.team(app)
            let alice = try await app.userId("a@example.com")
            let home = "/w/\(wid)"
            _ = try await MessagingTests.say(b, "/w/\(wid)/dm/\(alice)", "첫 인사")
            try await a.get(home)
            let first = try await a.get(home).text
            #expect(first.contains(">첫 인사</span>"))
            #expect(first.contains(">Bob</a>"))

            _ = try await MessagingTests.say(b, "/w/\(wid)/dm/\(alice)", "두 번째 인사")
            let second = try await a.get(home).text
            #expect(second.contains(">두 번째 인사</span>"))
            #expect(!second.contains(">첫 인사</span>"))

            try await b.get("/profile")
            #expect(try await b.post("/profile", [("nickname", "Roberto"), ("phone", "")]).status == .seeOther)
            #expect(try await a.get(home).text.contains(">Roberto</a>"))

            try await a.get("/w/\(wid)/settings")
            #expect(try await a.postMultipart("/w/\(wid)/settings", [("name", "새 이름"), ("description", "")]).status == .seeOther)
            let renamed = try await a.get(home).text
            #expect(renamed.contains(#"<h1 data-workspace-name="\#(wid)">새 이름</h1>"#))

            // The same home in the other language has its own texts, and the first keeps its own.
            try await a.post("/lang", [("lang", "ko"), ("next", home)])
            let korean = try await a.get(home).text
            #expect(korean.contains(">채널 둘러보기</a>") && korean.contains(">Roberto</a>"))
            try await a.post("/lang", [("lang", "en"), ("next", home)])
            #expect(try await a.get(home).text.contains(">Browse channels</a>"))
        }
    }

    /// The number a page's `<meta name=…>` holds.
    static func meta(_ page: String, _ name: String) -> Int64? {
        guard let start = page.range(of: #"<meta name="\#(name)" content=""#) else { return nil }
        return Int64(page[start.upperBound...].prefix { $0.isNumber })
    }

    @Test("a page says up to which event its unread counts go, so its script does not count one replayed to it again")
    func countsSayWhichEventsTheyHold() async throws {
        try await TestApp().run { app in
            let (a, b, wid, path, root) = try await ReactionTests.posted(app)
            let created = { (body: String) async throws -> Int64 in
                let message = try await app.count("SELECT id FROM messages WHERE body = ?", [body])
                return Int64(try await app.count("SELECT id FROM events WHERE type = 'message.created' AND message_id = ?", [message]))
            }
            try await ThreadTests.reply(b, wid, root, "스레드 답장")
            _ = try await MessagingTests.say(b, path, "새 소식")
            let home = try await a.get("/w/\(wid)").text
            #expect(home.contains(#"data-unread-count="1""#))
            #expect(home.contains(#"id="threads-unread" data-threads-unread>1</span>"#))
            let rooms = try #require(Self.meta(home, "rooms-counted-through"))
            let threads = try #require(Self.meta(home, "threads-counted-through"))
            #expect(rooms >= (try await created("새 소식")))
            #expect(threads >= (try await created("스레드 답장")))

            // A new message moves both: the count and the event it goes to.
            _ = try await MessagingTests.say(b, path, "또 하나")
            let newer = try await a.get("/w/\(wid)").text
            #expect(newer.contains(#"data-unread-count="2""#))
            #expect(try #require(Self.meta(newer, "rooms-counted-through")) >= (try await created("또 하나")))
        }
    }

    @Test("counts kept in memory stay kept when an event changes nothing they read: the event id they carry is not read as a dependency")
    func stampIsNotADependency() async throws {
        try await TestApp().run { app in
            let (a, b, wid, general) = try await MessagingTests.team(app)
            _ = try await MessagingTests.say(a, "/w/\(wid)/c/\(general)", "안녕하세요")
            let bob = try await app.userId("b@example.com"), markers = app.services.messages.markers
            // Read twice: the first read of a region's statements teaches it and is not kept.
            for _ in 1...2 { _ = try await app.database.query { tx in try markers.counted(tx, userId: bob, workspaceId: wid) } }
            let kept = try markers.counted(nil, userId: bob, workspaceId: wid)
            #expect(kept.value[general]?.unread == 1)
            try await RealtimeTests.publish(app, RealtimeTests.note("nothing counted", to: .user(bob), type: .userUpdated))
            #expect(try await app.settledEventId() > kept.throughEventId)
            let after = try markers.counted(nil, userId: bob, workspaceId: wid)
            #expect(after.throughEventId == kept.throughEventId)
            _ = b
        }
    }
}
