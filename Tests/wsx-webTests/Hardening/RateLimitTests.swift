import ArgumentParser
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import Uploads
@testable import wsx_web

/// Per-account limits on posting, uploading and searching: past them a 429 with `Retry-After`,
/// in the person's language (JSON for scripts), the text they wrote still in the composer, and
/// nothing stored; the allowance comes back with time, and other people are not held.
@Suite("Rate limits", .timeLimit(.minutes(5)))
struct RateLimitTests {
    static func limited(_ limits: RateLimits) -> TestApp {
        TestApp { $0.rateLimits = limits }
    }

    @Test("posts: a burst, then the rate; the 429 keeps the text in the composer, in Korean too, and stores nothing")
    func posts() async throws {
        try await Self.limited(RateLimits(postBurst: 3, postsPerSecond: 0.5, uploadBytesPerMinute: 0, searchesPerMinute: 0)).run { app in
            let (a, b, wid, general) = try await MessagingTests.team(app)
            let path = "/w/\(wid)/c/\(general)"
            for n in 1...3 { #expect(try await MessagingTests.say(a, path, "메시지 \(n)").status == .seeOther) }
            let before = try await app.count("SELECT COUNT(*) FROM messages")

            let refused = try await MessagingTests.say(a, path, "네 번째 메시지")
            #expect(refused.status == .tooManyRequests)
            #expect(refused.headers[.retryAfter] == "2")
            #expect(refused.text.contains("You are posting faster than this server allows. Your message is still here: send it again in 2 s."))
            #expect(refused.text.contains(">네 번째 메시지</textarea>"))
            // A script gets JSON; a reply is a post too.
            let json = try await a.post(path + "/messages", [("content", "json")], headers: [.accept: "application/json"])
            #expect(json.status == .tooManyRequests && json.headers[.retryAfter] == "2")
            #expect(json.text == #"{"error":"You are posting faster than this server allows. Your message is still here: send it again in 2 s."}"#)
            let mid = Int64(try await app.count("SELECT MAX(id) FROM messages"))
            let reply = try await ThreadTests.reply(a, wid, mid, "답글")
            #expect(reply.status == .tooManyRequests && reply.text.contains(">답글</textarea>"))
            _ = try await a.post("/lang", [("lang", "ko"), ("next", path)])
            let korean = try await MessagingTests.say(a, path, "한국어로")
            #expect(korean.status == .tooManyRequests)
            #expect(korean.text.contains("이 서버가 허용하는 것보다 빠르게 보내고 있습니다. 메시지는 그대로 있으니 2초 뒤에 다시 보내세요."))
            #expect(try await app.count("SELECT COUNT(*) FROM messages") == before)

            // Bob has his own allowance.
            #expect(try await MessagingTests.say(b, path, "Bob은 괜찮아요").status == .seeOther)
            // Two seconds give Alice one post back at 0.5 a second, and only one.
            app.clock.advance(by: 2)
            #expect(try await MessagingTests.say(a, path, "다시 보냄").status == .seeOther)
            #expect(try await MessagingTests.say(a, path, "또").status == .tooManyRequests)
            #expect(try await app.count("SELECT COUNT(*) FROM messages") == before + 2)
        }
    }

    @Test("uploads: bytes per minute per account; a refused upload leaves no file behind")
    func uploads() async throws {
        try await Self.limited(RateLimits(postBurst: 0, postsPerSecond: 0, uploadBytesPerMinute: 100_000, searchesPerMinute: 0)).run { app in
            let (a, b, wid, general) = try await MessagingTests.team(app)
            let path = "/w/\(wid)/c/\(general)"
            // A PDF made 40 KB long (what follows its end is nobody's business but the bytes').
            var pdf = Fixture.data("doc.pdf")
            pdf.append(Data(repeating: UInt8(ascii: " "), count: 40_000 - pdf.count))
            let file = TestBrowser.Upload(filename: "notes.pdf", data: pdf, contentType: "application/pdf")
            try await a.get(path)
            for _ in 1...2 {
                #expect(try await a.postMultipart(path + "/messages", [("content", "파일")], files: [file]).status == .seeOther)
            }
            let stored = try await app.count("SELECT COUNT(*) FROM files")
            let refused = try await a.postMultipart(path + "/messages", [("content", "세 번째 파일")], files: [file])
            #expect(refused.status == .tooManyRequests)
            let wait = try #require(refused.headers[.retryAfter].flatMap(Int.init))
            #expect((10...15).contains(wait))
            #expect(refused.text.contains("You have uploaded as much as this server allows for now. Try again in \(wait) s."))
            #expect(try await app.count("SELECT COUNT(*) FROM files") == stored)
            let temporaries = try FileManager.default.contentsOfDirectory(atPath: app.services.files.store.temporaryFolder.path)
            #expect(temporaries.isEmpty, "temporary upload files left: \(temporaries)")
            // Bob's uploads are his own; Alice's come back with the minute.
            try await b.get(path)
            #expect(try await b.postMultipart(path + "/messages", [("content", "Bob")], files: [file]).status == .seeOther)
            app.clock.advance(by: Double(wait + 1))
            #expect(try await a.postMultipart(path + "/messages", [("content", "세 번째 파일")], files: [file]).status == .seeOther)
        }
    }

    @Test("searches per minute: the next one waits, with a page in the person's language; an empty box is no search")
    func searches() async throws {
        try await Self.limited(RateLimits(postBurst: 0, postsPerSecond: 0, uploadBytesPerMinute: 0, searchesPerMinute: 2)).run { app in
            let (a, _, wid, _) = try await MessagingTests.team(app)
            #expect(try await a.get("/w/\(wid)/search?q=회의").status == .ok)
            #expect(try await a.get("/w/\(wid)/search?q=meeting").status == .ok)
            #expect(try await a.get("/w/\(wid)/search").status == .ok)
            let refused = try await a.get("/w/\(wid)/search?q=again")
            #expect(refused.status == .tooManyRequests && refused.headers[.retryAfter] == "30")
            #expect(refused.text.contains("You are searching faster than this server allows. Try again in 30 s."))
            let json = try await a.get("/w/\(wid)/search?q=again", headers: [.accept: "application/json"])
            #expect(json.text == #"{"error":"You are searching faster than this server allows. Try again in 30 s."}"#)
            app.clock.advance(by: 30)
            #expect(try await a.get("/w/\(wid)/search?q=again").status == .ok)
        }
    }

    @Test("status changes per minute: the 11th waits; the status stays as it was")
    func statusChanges() async throws {
        try await Self.limited(RateLimits(postBurst: 0, postsPerSecond: 0, uploadBytesPerMinute: 0, searchesPerMinute: 0,
                                          statusChangesPerMinute: 10)).run { app in
            let person = try await app.signedInBrowser()
            try await person.get("/profile")
            for n in 1...10 {
                #expect(try await person.post("/profile/status", [("emoji", ""), ("text", "회의 \(n)"), ("duration", "")]).status == .seeOther)
            }
            let refused = try await person.post("/profile/status", [("emoji", ""), ("text", "열한 번째"), ("duration", "")])
            #expect(refused.status == .tooManyRequests && refused.headers[.retryAfter] == "6")
            #expect(refused.text.contains("You are changing your status faster than this server allows. Try again in 6 s."))
            #expect(try await app.count("SELECT COUNT(*) FROM user_statuses WHERE text = '회의 10'") == 1)
            app.clock.advance(by: 6)
            #expect(try await person.post("/profile/status", [("emoji", ""), ("text", "다시"), ("duration", "")]).status == .seeOther)
        }
    }

    @Test("edits come out of the post allowance; a message takes at most 100 edits; its events do not grow with them")
    func edits() async throws {
        try await Self.limited(RateLimits(postBurst: 3, postsPerSecond: 0.5, uploadBytesPerMinute: 0, searchesPerMinute: 0)).run { app in
            let (a, _, wid, general) = try await MessagingTests.team(app)
            #expect(try await MessagingTests.say(a, "/w/\(wid)/c/\(general)", "원래 글").status == .seeOther)
            let mid = try await app.count("SELECT MAX(id) FROM messages")
            for n in 1...2 {
                #expect(try await a.post("/w/\(wid)/m/\(mid)/edit", [("content", "고침 \(n)")]).status == .seeOther)
            }
            let refused = try await a.post("/w/\(wid)/m/\(mid)/edit", [("content", "너무 빨리")])
            #expect(refused.status == .tooManyRequests && refused.headers[.retryAfter] == "2")
            #expect(try await app.count("SELECT COUNT(*) FROM messages WHERE body = '고침 2'") == 1)
        }
        try await TestApp().run { app in
            let (a, _, wid, general) = try await MessagingTests.team(app)
            #expect(try await MessagingTests.say(a, "/w/\(wid)/c/\(general)", "원래 글").status == .seeOther)
            let mid = try await app.count("SELECT MAX(id) FROM messages")
            for n in 1...MessageService.maximumEdits {
                let edited = try await a.post("/w/\(wid)/m/\(mid)/edit", [("content", "고침 \(n)")], headers: [.accept: "application/json"])
                #expect(edited.status == .ok, "edit \(n)")
            }
            // Its creation (as it reads now) and its latest edit: two events, not a hundred and one.
            #expect(try await app.count("SELECT COUNT(*) FROM events WHERE message_id = ?", [mid]) == 2)
            #expect(try await app.count("SELECT COUNT(*) FROM events WHERE message_id = ? AND payload LIKE '%고침 100%'", [mid]) == 2)
            let refused = try await a.post("/w/\(wid)/m/\(mid)/edit", [("content", "또 고침")], headers: [.accept: "application/json"])
            #expect(refused.status == .unprocessableContent)
            #expect(refused.text.contains("This message was edited as often as this server allows. Send a new message instead."))
            #expect(try await app.count("SELECT COUNT(*) FROM messages WHERE body = '고침 100'") == 1)
        }
    }

    @Test("the limits come from flags, else WSX_ variables, else Mattermost's defaults for posts; 0 turns one off")
    func options() throws {
        let none = EnvironmentDefaults(values: [:])
        let defaults = try ServeCommand.parse([]).resolvedConfig(environment: none).rateLimits
        #expect(defaults == RateLimits(postBurst: 100, postsPerSecond: 10, uploadBytesPerMinute: 500 << 20, searchesPerMinute: 60))
        // The upload allowance follows the upload limits unless given: five files of the largest size.
        let larger = try ServeCommand.parse(["--max-files", "3", "--max-file-size", "1GB"]).resolvedConfig(environment: none)
        #expect(larger.rateLimits.uploadBytesPerMinute == 3 << 30)
        let flags = try ServeCommand.parse(["--post-burst", "5", "--posts-per-second", "0.5", "--upload-bytes-per-minute", "2MB",
                                            "--searches-per-minute", "0"]).resolvedConfig(environment: none).rateLimits
        #expect(flags == RateLimits(postBurst: 5, postsPerSecond: 0.5, uploadBytesPerMinute: 2 << 20, searchesPerMinute: 0))
        let env = EnvironmentDefaults(values: ["WSX_POST_BURST": "0", "WSX_POSTS_PER_SECOND": "3", "WSX_UPLOAD_BYTES_PER_MINUTE": "0",
                                               "WSX_SEARCHES_PER_MINUTE": "7"])
        #expect(try ServeCommand.parse([]).resolvedConfig(environment: env).rateLimits
            == RateLimits(postBurst: 0, postsPerSecond: 3, uploadBytesPerMinute: 0, searchesPerMinute: 7))
        for bad in [["--post-burst", "-1"], ["--posts-per-second", "fast"], ["--upload-bytes-per-minute", "lots"]] {
            #expect(throws: (any Error).self) { try ServeCommand.parse(bad).resolvedConfig(environment: none) }
        }
    }

    @Test("a token bucket: a burst, the rate after it, and one cost larger than the bucket once it is full")
    func bucket() {
        let start = Date(timeIntervalSince1970: 0)
        var bucket = TokenBucket(capacity: 3, perSecond: 1, now: start)
        #expect(bucket.take(1, now: start) == nil && bucket.take(1, now: start) == nil && bucket.take(1, now: start) == nil)
        #expect(bucket.take(1, now: start) == 1)
        #expect(bucket.take(1, now: start.addingTimeInterval(1)) == nil)
        #expect(bucket.take(2, now: start.addingTimeInterval(1.5)) == 2)
        // Full again after three seconds: a cost of 5 goes through and leaves a debt of 2.
        #expect(bucket.take(5, now: start.addingTimeInterval(10)) == nil)
        #expect(bucket.take(1, now: start.addingTimeInterval(12)) == 1)
        #expect(bucket.take(1, now: start.addingTimeInterval(13)) == nil)
    }

    @Test("with two nodes alive each allows half of an account's burst, so together they never allow more; one node again, the whole")
    func nodeShare() throws {
        let clock = ManualClock()
        let nodes = LiveNodes()
        nodes.set(2)
        let limiter = AccountRateLimiter(limits: RateLimits(postBurst: 10, postsPerSecond: 1, uploadBytesPerMinute: 0, searchesPerMinute: 0,
                                                            statusChangesPerMinute: 0), clock: clock.wallClock, nodes: nodes)
        for _ in 0..<5 { try limiter.charge(.post, userId: 1) }
        #expect(throws: AppError.self) { try limiter.charge(.post, userId: 1) }
        // One node again: its bucket keeps what it held, and fills up to the whole burst.
        nodes.set(1)
        clock.advance(by: 60)
        try limiter.charge(.post, userId: 1)
        clock.advance(by: 6)
        for _ in 0..<10 { try limiter.charge(.post, userId: 1) }
        #expect(throws: AppError.self) { try limiter.charge(.post, userId: 1) }
    }
}
