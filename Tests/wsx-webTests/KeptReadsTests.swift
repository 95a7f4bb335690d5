import Foundation
import GRDB
import Testing
@testable import wsx_web

/// What a room's page reads once and keeps (which messages a page lists, the sidebar's lists)
/// must never hide a change: every test first has the reads kept, then changes something the
/// page shows, and expects the very next load to show it.
@Suite("Reads kept for room pages")
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
            #expect(try await b.get(path).text.contains(#"<span class="message-author">Alicia</span>"#))
            #expect(app.services.messages.keptPages.count == 1)
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
}
