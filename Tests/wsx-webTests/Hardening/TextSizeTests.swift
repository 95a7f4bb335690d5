import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import Uploads
import Views
@testable import wsx_web

/// Class: "short" texts of any size. Every text limit counts characters, UTF-8 bytes (4 per
/// character) and scalars per character (16), so a one-letter text of 150,000 marks is refused
/// everywhere a limit applies, while emoji sequences and Old Hangul go through.
@Suite("Text sizes", .timeLimit(.minutes(5)))
struct TextSizeTests {
    /// One letter carrying 150,000 combining marks: one character, 300 KB.
    static let stacked = "a" + String(repeating: "\u{0301}", count: 150_000)
    /// One letter with 20 marks: one character, 41 bytes, too many marks.
    static let zalgo = "a" + String(repeating: "\u{0301}", count: 20)
    /// Texts people really write, each a handful of characters made of several scalars.
    static let real = ["👨‍👩‍👧‍👦", "🏳️‍🌈", "🇰🇷", "ᄒᆞᆫ글", "🧑🏻‍❤️‍💋‍🧑🏼", "🏴󠁧󠁢󠁳󠁣󠁴󠁿", "é", "한국어"]

    @Test("TextLimit counts characters, bytes and scalars per character")
    func limitMeasures() {
        let limit = TextLimit(characters: 5)
        #expect(limit.check("") == .fits)
        #expect(limit.check("가나다라마") == .fits)
        #expect(limit.check("가나다라마바") == .tooLong)
        #expect(limit.check("👨‍👩‍👧‍👦") == .tooLong)        // one character, but 25 bytes > 20
        #expect(TextLimit(characters: 7).check("👨‍👩‍👧‍👦") == .fits)
        #expect(limit.check(Self.stacked) == .tooLong)
        #expect(TextLimit(characters: 30).check(Self.zalgo) == .tooManyMarks)
        for text in Self.real { #expect(TextLimit(characters: 30).check(text) == .fits, "\(text)") }
        #expect(TextLimit(characters: 30).check("a" + String(repeating: "\u{0301}", count: 15)) == .fits)
        #expect(TextLimit(characters: 30).check("a" + String(repeating: "\u{0301}", count: 16)) == .tooManyMarks)
    }

    @Test("a custom status of 100 characters made of 3 KB (marks stacked under each), is refused; 100 real ones fit")
    func statusText() async throws {
        try await TestApp().run { app in
            let person = try await app.signedInBrowser()
            try await person.get("/profile")
            // 100 characters, as the old check counted them: each a letter with 15 marks, 31 bytes.
            let flood = String(repeating: "a" + String(repeating: "\u{0301}", count: 15), count: 100)
            #expect(flood.count == 100 && flood.utf8.count == 3_100)
            let refused = try await person.post("/profile/status", [("emoji", ""), ("text", flood), ("duration", "")])
            #expect(refused.status == .unprocessableContent)
            #expect(refused.text.contains("Keep it to 100 characters."))
            #expect(try await app.count("SELECT COUNT(*) FROM user_statuses") == 0)
            #expect(try await app.count("SELECT COUNT(*) FROM events WHERE type = 'status.changed'") == 0)
            let real = String(repeating: "휴", count: 100)
            #expect(try await person.post("/profile/status", [("emoji", ""), ("text", real), ("duration", "")]).status == .seeOther)
        }
    }

    @Test("clamping keeps what fits and drops stacked marks, for names that are kept rather than refused")
    func clamping() {
        let limit = TextLimit(characters: 200)
        let clamped = limit.clamped(Self.stacked)
        #expect(clamped.unicodeScalars.count == TextLimit.scalarsPerCharacter)
        #expect(limit.clamped("회의록.pdf") == "회의록.pdf")
        #expect(limit.clamped(String(repeating: "가", count: 300)).count == 200)
        #expect(limit.clamped(String(repeating: "🇰🇷", count: 200)).utf8.count <= limit.bytes)
        #expect(FileName.clean("보고서" + Self.stacked + ".zip").utf8.count <= FileName.limit.bytes)
    }

    /// The most UTF-8 bytes any text of the query's first column takes, as stored.
    static func longestInBytes(_ app: TestSession, _ sql: String) async throws -> Int {
        try app.database.query { tx in try tx.inspection.rows(sql, []) }.map { $0[0].utf8.count }.max() ?? 0
    }

    @Test("nicknames: stacked marks and byte floods are refused at sign-up and in the profile; emoji and Old Hangul fit")
    func nicknames() async throws {
        try await TestApp().run { app in
            for nickname in [Self.stacked, Self.zalgo, String(repeating: "🇰🇷", count: 30)] {
                let refused = try await app.browser().signUp(email: "n\(UUID().uuidString.prefix(6))@example.com", nickname: nickname,
                                                             password: "long enough")
                #expect(refused.status == .unprocessableContent)
            }
            #expect(try await app.count("SELECT COUNT(*) FROM users") == 0)
            let person = try await app.signedInBrowser(nickname: "👨‍👩‍👧‍👦🏳️‍🌈🇰🇷 ᄒᆞᆫ글")
            for nickname in [Self.stacked, Self.zalgo] {
                try await person.get("/profile")
                let refused = try await person.post("/profile", [("nickname", nickname), ("phone", "")])
                #expect(refused.status == .unprocessableContent)
            }
            let zalgo = try await person.post("/profile", [("nickname", Self.zalgo), ("phone", "")])
            #expect(zalgo.text.contains("too many accents or marks"))
            #expect(try await Self.longestInBytes(app, "SELECT nickname FROM users") < 120)
        }
    }

    @Test("messages: posting and editing refuse stacked marks; 👨‍👩‍👧‍👦, 🏳️‍🌈, 🇰🇷 and ᄒᆞᆫ글 go through")
    func messages() async throws {
        try await TestApp().run { app in
            let (a, _, wid, general) = try await MessagingTests.team(app)
            let path = "/w/\(wid)/c/\(general)"
            for text in [Self.stacked, Self.zalgo, String(repeating: "👨‍👩‍👧‍👦", count: 1000)] {
                #expect(try await MessagingTests.say(a, path, text).status == .unprocessableContent)
            }
            #expect(try await app.count("SELECT COUNT(*) FROM messages") == 0)
            for text in Self.real {
                #expect(try await MessagingTests.say(a, path, "\(text) 확인") .status == .seeOther, "\(text)")
            }
            let page = try await a.get(path)
            for text in Self.real { #expect(page.text.contains(text)) }
            let mid = Int64(try await app.count("SELECT MAX(id) FROM messages"))
            #expect(try await a.post("/w/\(wid)/m/\(mid)/edit", [("content", Self.stacked)]).status == .unprocessableContent)
            #expect(try await a.post("/w/\(wid)/m/\(mid)/edit", [("content", Self.zalgo)]).status == .unprocessableContent)
            #expect(try await Self.longestInBytes(app, "SELECT body FROM messages") < 100)
        }
    }

    @Test("workspace and channel names and descriptions, and search queries, refuse stacked marks")
    func namesAndSearch() async throws {
        try await TestApp().run { app in
            let owner = try await app.signedInBrowser()
            try await owner.get("/workspaces")
            for (name, description) in [(Self.stacked, ""), (Self.zalgo, ""), ("Fine", Self.stacked), ("Fine", Self.zalgo)] {
                let refused = try await owner.post("/workspaces", [("name", name), ("description", description)])
                #expect(refused.status == .unprocessableContent)
            }
            #expect(try await app.count("SELECT COUNT(*) FROM workspaces") == 0)
            let wid = try await owner.createWorkspace("🇰🇷 팀 👨‍👩‍👧‍👦", description: "ᄒᆞᆫ글 🏳️‍🌈")
            try await owner.get("/w/\(wid)/channels")
            for (name, description) in [(Self.stacked, ""), (Self.zalgo, ""), ("fine", Self.stacked)] {
                let refused = try await owner.post("/w/\(wid)/channels", [("name", name), ("description", description)])
                #expect(refused.status == .unprocessableContent)
            }
            #expect(try await app.count("SELECT COUNT(*) FROM rooms") == 1)
            var allowed = CharacterSet.alphanumerics
            allowed.insert(charactersIn: "-._~")
            for query in [Self.stacked, Self.zalgo] {
                let encoded = query.addingPercentEncoding(withAllowedCharacters: allowed)!
                #expect(try await owner.get("/w/\(wid)/search?q=\(encoded)").status == .unprocessableContent)
            }
            #expect(try await owner.get("/w/\(wid)/search?q=%F0%9F%87%B0%F0%9F%87%B7").status == .ok)
        }
    }
}
