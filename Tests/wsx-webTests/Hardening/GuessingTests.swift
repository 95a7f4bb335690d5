import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import wsx_web

/// Class: limits that count after the work they guard. Sign-ins and sign-ups are reserved before
/// any password is hashed, so parallel requests cannot slip under a limit; limits are counted
/// so that a guesser cannot lock the account's owner out; hashing waits in a bounded line.
@Suite("Guessing and floods", .timeLimit(.minutes(5)))
struct GuessingTests {
    /// A browser whose requests come from `address` (the app trusts the proxy header).
    static func from(_ app: TestSession, _ address: String) -> TestBrowser {
        let browser = app.browser()
        browser.extraHeaders[.init("X-Forwarded-For")!] = address
        return browser
    }

    static func logIn(_ browser: TestBrowser, _ email: String, _ password: String) async throws -> TestResponse {
        try await browser.post("/login", [("email", email), ("password", password)])
    }

    @Test("150 guesses at once from one address: ten are checked, the rest refused with Retry-After, nothing hashed for them")
    func parallelGuesses() async throws {
        try await TestApp { $0.trustProxy = true }.run { app in
            _ = try await app.signedInBrowser(email: "owner@example.com", password: "the right one")
            let guesser = Self.from(app, "203.0.113.9")
            try await guesser.get("/login")
            let (cookie, token) = (guesser.cookies[CookiePolicy.anonymousCSRF], try #require(guesser.csrfToken))
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for index in 0..<150 {
                    group.addTask {
                        // A browser per request (one TestBrowser is not safe to share), with the same tokens.
                        let browser = Self.from(app, "203.0.113.9")
                        browser.setCookie(CookiePolicy.anonymousCSRF, cookie)
                        return try await browser.post("/login", [("email", "owner@example.com"), ("password", "wrong guess \(index)")],
                                                      csrf: .value(token)).status
                    }
                }
                return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .unauthorized }.count == 10)
            #expect(statuses.filter { $0 == .tooManyRequests }.count == 140)
            let refused = try await Self.logIn(guesser, "owner@example.com", "the right one")
            #expect(refused.status == .tooManyRequests)
            #expect(Int(refused.headers[.retryAfter] ?? "") ?? 0 > 0)
            #expect(refused.text.contains("Too many failed attempts."))
        }
    }

    @Test("guesses from elsewhere do not lock the owner out: per account and address strictly, per account loosely, a known browser not at all")
    func ownerIsNotLockedOut() async throws {
        try await TestApp {
            $0.trustProxy = true
            $0.loginLimits = .init(perAccountAndAddress: 3, perAccount: 6, perAddress: 100, window: 180)
        }.run { app in
            let owner = try await app.signedInBrowser(email: "victim@example.com", password: "the right one")
            // The owner's own browser signs out and keeps its device cookie.
            try await owner.get("/workspaces")
            try await owner.post("/logout")
            #expect(owner.cookies[DeviceCookie.name] != nil)
            // Three addresses guess three times each: each is held; 9 failures pass the per-account 6.
            for address in ["198.51.100.1", "198.51.100.2", "198.51.100.3"] {
                let guesser = Self.from(app, address)
                try await guesser.get("/login")
                for _ in 0..<3 { _ = try await Self.logIn(guesser, "victim@example.com", "guess") }
                #expect(try await Self.logIn(guesser, "victim@example.com", "guess").status == .tooManyRequests)
            }
            // A new browser anywhere now waits (the account is under attack)...
            let stranger = Self.from(app, "192.0.2.77")
            try await stranger.get("/login")
            #expect(try await Self.logIn(stranger, "victim@example.com", "the right one").status == .tooManyRequests)
            // ...but the owner's browser, which signed in before, gets in, from any address.
            owner.extraHeaders[.init("X-Forwarded-For")!] = "192.0.2.200"
            try await owner.get("/login")
            #expect(try await Self.logIn(owner, "victim@example.com", "the right one").status == .seeOther)
            // A device cookie for another account, or a forged one, does not help.
            stranger.setCookie(DeviceCookie.name, owner.cookies[DeviceCookie.name])
            #expect(try await Self.logIn(stranger, "victim@example.com", "the right one").status == .seeOther)
            let forger = Self.from(app, "192.0.2.78")
            try await forger.get("/login")
            forger.setCookie(DeviceCookie.name, "AAAA")
            #expect(try await Self.logIn(forger, "victim@example.com", "the right one").status == .tooManyRequests)
        }
    }

    @Test("sign-ups per address are limited before hashing; sign-ups through an invitation do not count")
    func signupFlood() async throws {
        try await TestApp {
            $0.trustProxy = true
            $0.signupLimit = .init(limit: 20, window: 3600)
        }.run { app in
            let office = Self.from(app, "203.0.113.50")
            try await office.get("/signup")
            let token = try #require(office.csrfToken)
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for index in 0..<120 {
                    group.addTask {
                        let browser = Self.from(app, "203.0.113.50")
                        browser.setCookie(CookiePolicy.anonymousCSRF, office.cookies[CookiePolicy.anonymousCSRF])
                        return try await browser.post("/signup", [("email", "flood\(index)@example.com"), ("nickname", "F\(index)"),
                                                                  ("phone", ""), ("password", "long enough"),
                                                                  ("password_confirm", "long enough")], csrf: .value(token)).status
                    }
                }
                return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .seeOther }.count == 20)
            #expect(statuses.filter { $0 == .tooManyRequests }.count == 100)
            #expect(try await app.count("SELECT COUNT(*) FROM users") == 20)
            // Refused sign-ups (a taken address) do not use up the allowance; the 429 page says why.
            let refused = try await office.post("/signup", [("email", "late@example.com"), ("nickname", "Late"), ("phone", ""),
                                                            ("password", "long enough"), ("password_confirm", "long enough")])
            #expect(refused.status == .tooManyRequests)
            #expect(refused.headers[.retryAfter] != nil)
            #expect(refused.text.contains("Too many sign-ups from your network."))
            // Another address signs up as usual.
            #expect(try await Self.from(app, "198.51.100.9").signUp(email: "else@example.com", nickname: "E",
                                                                      password: "long enough").status == .seeOther)
            // An invitation from a member still brings someone in from the same office.
            let owner = try await app.signedInBrowser(email: "owner@example.com")
            let wid = try await owner.createWorkspace("Office")
            let access = try await app.services.workspaces.access(workspaceId: wid, userId: try await app.userId("owner@example.com"))
            let invite = try await app.services.invitations.invite(access, email: "newcomer@example.com").token
            let newcomer = Self.from(app, "203.0.113.50")
            try await newcomer.get("/invite/\(invite)")
            let joined = try await newcomer.post("/invite/\(invite)", [("nickname", "New"), ("phone", ""), ("password", "long enough"),
                                                                      ("password_confirm", "long enough")])
            #expect(joined.status == .seeOther)
        }
    }

    @Test("password hashing waits in a bounded line, one per slot, sign-ins first")
    func hashingLine() async throws {
        let queue = HashingQueue(slots: 1, maximumWaiting: 3)
        let order = OrderLog()
        let gate = Gate()
        let first = Task { try await queue.run(.other) { await gate.wait(); await order.add("first") } }
        while await queue.waiting == 0, await !gate.isWaiting { await Task.yield() }
        let other = Task { try await queue.run(.other) { await order.add("other") } }
        while await queue.waiting < 1 { await Task.yield() }
        let signIn = Task { try await queue.run(.signIn) { await order.add("sign-in") } }
        while await queue.waiting < 2 { await Task.yield() }
        let another = Task { try await queue.run(.other) { await order.add("another") } }
        while await queue.waiting < 3 { await Task.yield() }
        await #expect(throws: HashingQueue.Busy.self) { try await queue.run(.signIn) {} }
        await gate.open()
        for task in [first, other, signIn, another] { try await task.value }
        #expect(await order.entries == ["first", "sign-in", "other", "another"])
    }

    @Test("a password is checked while every thread of NIO's shared pool is busy (host lookups, connections)")
    func hashingDoesNotWaitForSharedThreads() async throws {
        let hasher = PasswordHasher(cost: 4)
        let hash = try await hasher.hash("correct horse")
        let checked = try await SharedThreads.held { try await hasher.verify("correct horse", against: hash) }
        #expect(checked == true, "the check waited for the shared threads")
    }
}

/// Test helpers for ordering.
private actor OrderLog {
    var entries: [String] = []
    func add(_ entry: String) { entries.append(entry) }
}

private actor Gate {
    private var waiter: CheckedContinuation<Void, Never>?
    private var opened = false
    var isWaiting: Bool { waiter != nil }

    func wait() async {
        if opened { return }
        await withCheckedContinuation { waiter = $0 }
    }

    func open() {
        opened = true
        waiter?.resume()
        waiter = nil
    }
}
