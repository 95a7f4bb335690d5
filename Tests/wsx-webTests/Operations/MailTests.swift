import ArgumentParser
import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import NIOCore
import Synchronization
import Testing
import Views
@testable import Mail
@testable import wsx_web

/// Mail without a mail server: the messages as they are written (MIME, encoded Korean words,
/// dot-stuffing), the SMTP address, the queue that requests write to, the digest's choice of
/// what to tell whom, and the pages around them. The conversation with a real SMTP server
/// (STARTTLS, login, refusals, retries) is tested against aiosmtpd in Tests/browser/test_mail.py.
@Suite("Mail", .timeLimit(.minutes(5)))
struct MailTests {
    static let from = MailAddress(name: "wsx 알림", address: "chat@example.com")

    /// A server that "sends" mail to a port where nothing listens: only the queue is looked at.
    static func withMail(digestAfter: TimeInterval = 3600, _ extra: @escaping (inout AppConfig) -> Void = { _ in }) -> TestApp {
        TestApp { config in
            config.mail = MailSettings(smtp: SMTPSettings(host: "127.0.0.1", port: 9, security: .startTLSWhenOffered),
                                       from: from, retryDelay: .seconds(3600), digestAfter: digestAfter)
            config.baseURL = "https://chat.example.com"
            extra(&config)
        }
    }

    /// The messages of the mail of `kind` in the queue, oldest first.
    static func queued(_ app: TestSession, kind: String) async throws -> [String] {
        try app.services.database.query { tx in
            try tx.inspection.rows("SELECT message FROM mail_outbox WHERE kind = ? ORDER BY id", [kind])
        }.map { $0[0] }
    }

    /// The text of a base64 MIME part of `message` with this content type.
    static func part(_ message: String, _ type: String) -> String? {
        guard let start = message.range(of: "Content-Type: \(type); charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n") else {
            return nil
        }
        let rest = message[start.upperBound...]
        let body = rest.prefix { $0 != "-" }.replacingOccurrences(of: "\r\n", with: "")
        return Data(base64Encoded: body).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test("a message: headers, Korean in encoded words of at most 75 characters, text and HTML alternatives, CRLF lines")
    func rendering() throws {
        let message = MailMessage(from: Self.from, to: MailAddress(address: "minah@example.com"),
                                  subject: "민아님이 wsx의 디자인팀에 초대했습니다 — 아주 긴 제목이 여러 단어로 나뉘어야 합니다",
                                  text: "안녕하세요\n.점으로 시작하는 줄", html: "<p>안녕하세요</p>", headers: [("Auto-Submitted", "auto-generated")])
        let rendered = message.rendered(date: Date(timeIntervalSince1970: 1_800_000_000), messageId: "abc@example.com")
        #expect(rendered.contains("From: =?UTF-8?B?d3N4IOyVjOumvA==?= <chat@example.com>\r\n"))
        #expect(rendered.contains("To: <minah@example.com>\r\n"))
        #expect(rendered.contains("Date: Fri, 15 Jan 2027 08:00:00 +0000\r\n"))
        #expect(rendered.contains("Message-ID: <abc@example.com>\r\n"))
        #expect(rendered.contains("Content-Type: multipart/alternative; boundary=\"wsx-abc\"\r\n"))
        #expect(rendered.contains("Auto-Submitted: auto-generated\r\n"))
        // Every line short and ending in CRLF; the subject folded into several words that decode back.
        for line in rendered.components(separatedBy: "\r\n") { #expect(line.utf8.count <= 78 && !line.contains("\n")) }
        let subjectLines = rendered.components(separatedBy: "\r\n").drop { !$0.hasPrefix("Subject: ") }.prefix { $0.hasPrefix("Subject: ") || $0.hasPrefix(" ") }
        #expect(subjectLines.count > 1)
        let decoded = subjectLines.map { line in
            let word = line.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "Subject: ", with: "")
            #expect(word.hasPrefix("=?UTF-8?B?") && word.hasSuffix("?=") && word.utf8.count <= 75)
            return String(decoding: Data(base64Encoded: String(word.dropFirst(10).dropLast(2)))!, as: UTF8.self)
        }.joined()
        #expect(decoded == message.subject)
        #expect(Self.part(rendered, "text/plain") == "안녕하세요\r\n.점으로 시작하는 줄")
        #expect(Self.part(rendered, "text/html") == "<p>안녕하세요</p>")
        #expect(MailMessage.encodedWords("Plain subject") == "Plain subject")
    }

    @Test("SMTP addresses, mailboxes and dot-stuffing")
    func addresses() throws {
        let plain = try SMTPSettings.parse("smtp://127.0.0.1:2525")
        #expect(plain == SMTPSettings(host: "127.0.0.1", port: 2525, security: .startTLSWhenOffered))
        let login = try SMTPSettings.parse("smtp://user%40example.com:p%3Ass@mail.example.com")
        #expect(login.username == "user@example.com" && login.password == "p:ss" && login.port == 25)
        #expect(try SMTPSettings.parse("smtps://mail.example.com").port == 465)
        #expect(try SMTPSettings.parse("smtps://mail.example.com").security == .implicitTLS)
        for bad in ["http://mail.example.com", "smtp://", "smtp://user@host", "smtp://host/path", "mail.example.com"] {
            #expect(throws: SMTPError.self) { try SMTPSettings.parse(bad) }
        }
        #expect(MailAddress.parse("wsx <chat@example.com>") == MailAddress(name: "wsx", address: "chat@example.com"))
        #expect(MailAddress.parse("chat@example.com") == MailAddress(address: "chat@example.com"))
        #expect(MailAddress.parse("not an address") == nil)
        #expect(SMTPClient.dotStuffed(".first\r\nmiddle\r\n.\r\nlast") == "..first\r\nmiddle\r\n..\r\nlast\r\n")
        #expect(SMTPClient.serverName("127.0.0.1") == nil && SMTPClient.serverName("::1") == nil)
        #expect(SMTPClient.serverName("mail.example.com") == "mail.example.com")
        // Flags: the URL, the sender, the retry delay, the digest's hour; a bad one is refused.
        let none = EnvironmentDefaults(values: [:])
        let config = try ServeCommand.parse(["--smtp-url", "smtp://127.0.0.1:2525", "--mail-from", "wsx <chat@example.com>",
                                             "--mail-retry-delay", "0.5", "--digest-after", "30m", "--reset-max-per-ip", "9",
                                             "--base-url", "https://chat.example.com"]).resolvedConfig(environment: none)
        #expect(config.mail?.smtp.port == 2525 && config.mail?.smtp.heloName == "chat.example.com")
        #expect(config.mail?.from == MailAddress(name: "wsx", address: "chat@example.com"))
        #expect(config.mail?.retryDelay == .milliseconds(500) && config.mail?.digestAfter == 1800 && config.resetLimitPerAddress == 9)
        #expect(try ServeCommand.parse([]).resolvedConfig(environment: none).mail == nil)
        for bad in [["--smtp-url", "http://x"], ["--smtp-url", "smtp://h", "--mail-from", "nobody"],
                    ["--smtp-url", "smtp://h", "--smtp-ca-file", "/nonexistent.pem"], ["--smtp-url", "smtp://h", "--digest-after", "soon"]] {
            #expect(throws: (any Error).self) { try ServeCommand.parse(bad).resolvedConfig(environment: none) }
        }
    }

    @Test("retries back off four times as long each time, at most six hours apart")
    func backoff() throws {
        let folder = try makeEmptyFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let sender = MailSender(outbox: MailOutbox(database: try AppDatabase.open(dataDirectory: folder.path), clock: .system),
                                client: SMTPClient(settings: SMTPSettings(host: "localhost", port: 25, security: .startTLSWhenOffered)),
                                sender: "a@example.com", retryDelay: .seconds(30), clock: .system, logger: .init(label: "test"))
        #expect([1, 2, 3, 4, 5, 6].map(sender.delay(after:)) == [30, 120, 480, 1920, 7680, 21_600])
    }

    @Test("an invitation is mailed, not shown, in the inviter's language; inviting again sends it again")
    func invitationMail() async throws {
        try await Self.withMail().run { app in
            let owner = try await app.signedInBrowser(email: "owner@example.com", nickname: "민아")
            let wid = try await owner.createWorkspace("디자인팀")
            _ = try await owner.post("/lang", [("lang", "ko"), ("next", "/w/\(wid)/members")])
            try await owner.get("/w/\(wid)/members")
            let invited = try await owner.post("/w/\(wid)/members", [("email", "guest@example.com")])
            #expect(invited.status == .ok)
            #expect(invited.text.contains("guest@example.com에게 초대 메일을 보냈습니다. 7일 동안 유효합니다."))
            // No link box: the link went by mail (the owner's pending list still has it to copy).
            #expect(!invited.text.contains(#"<code id="invite-link">"#))
            let mails = try await Self.queued(app, kind: "invitation")
            let mail = try #require(mails.first)
            #expect(mail.contains("To: <guest@example.com>\r\n"))
            let text = try #require(Self.part(mail, "text/plain"))
            #expect(text.contains("민아님이 디자인팀 워크스페이스에 초대했습니다."))
            let link = try #require(text.firstMatch(of: /https:\/\/chat\.example\.com\/invite\/([A-Za-z0-9_-]{43})/))
            #expect(try await app.browser().get("/invite/\(link.1)").status == .ok)
            app.clock.advance(by: InvitationLimits.resendCooldown)
            _ = try await owner.post("/w/\(wid)/members", [("email", "guest@example.com")])
            #expect(try await Self.queued(app, kind: "invitation").count == 2)
            #expect(try await app.count("SELECT COUNT(*) FROM mail_outbox WHERE workspace_id = ?", [wid]) == 2)
        }
    }

    @Test("Forgot password: the same answer for any address, a mail only to an account, never a link on the page; limits")
    func resetRequests() async throws {
        try await Self.withMail { $0.resetLimitPerAddress = 3 }.run { app in
            _ = try await app.signedInBrowser(email: "known@example.com", nickname: "Known")
            let visitor = app.browser()
            let login = try await visitor.get("/login")
            #expect(login.text.contains(#"<a href="/reset">Forgot password?</a>"#))
            #expect(try await visitor.get("/reset").text.contains(#"<input id="email" name="email" type="email""#))
            let known = try await visitor.post("/reset", [("email", "Known@Example.com")])
            let unknown = try await visitor.post("/reset", [("email", "nobody@example.com")])
            #expect(known.status == .ok && unknown.status == .ok)
            let notice = "If an account uses that address, a link to reset its password is on its way."
            #expect(known.text.contains(notice) && unknown.text.contains(notice))
            #expect(!known.text.contains("/reset/"))
            // The lookup and the mail come after the answer, the same answer either way.
            #expect(await eventually { (try? await Self.queued(app, kind: "password_reset").count) == 1 })
            let mails = try await Self.queued(app, kind: "password_reset")
            #expect(mails.count == 1)
            let first = try #require(mails.first)
            let text = try #require(Self.part(first, "text/plain"))
            let token = try #require(text.firstMatch(of: /https:\/\/chat\.example\.com\/reset\/([A-Za-z0-9_-]{43})/)).1
            #expect(try await visitor.get("/reset/\(token)").status == .ok)
            // Three from one address an hour; the fourth waits.
            _ = try await visitor.post("/reset", [("email", "nobody@example.com")])
            let fourth = try await visitor.post("/reset", [("email", "known@example.com")])
            #expect(fourth.status == .tooManyRequests && fourth.headers[.retryAfter] != nil)
            #expect(fourth.text.contains("Too many reset requests from your address."))
            #expect(try await Self.queued(app, kind: "password_reset").count == 1)
        }
        try await TestApp().run { app in
            let visitor = app.browser()
            try await visitor.get("/reset")
            let answer = try await visitor.post("/reset", [("email", "anyone@example.com")])
            #expect(answer.text.contains("This server does not send mail, so a password cannot be reset from here. Ask your administrator"))
            #expect(!answer.text.contains("wsx-web user"))
            #expect(try await app.count("SELECT COUNT(*) FROM mail_outbox") == 0)
        }
    }

    @Test("the digest: mentions and direct messages unread for the hour, to people not online, once; unsubscribe in one click")
    func digest() async throws {
        try await Self.withMail(digestAfter: 3600).run { app in
            let (a, b, wid, general) = try await MessagingTests.team(app)
            let path = "/w/\(wid)/c/\(general)"
            _ = try await MessagingTests.say(a, path, "@Bob 회의 자료 확인 부탁드려요")
            _ = try await MessagingTests.say(a, path, "멘션 없는 말")
            let bob = try await app.userId("b@example.com")
            let sender = try #require(app.services.mailSender)
            let mailer = DigestMailer(database: app.services.database, hub: app.services.hub, composer: try #require(app.services.mailComposer),
                                      sender: sender, serverKey: app.services.serverKey, after: 3600, clock: app.clock.wallClock,
                                      logger: .init(label: "test"))
            #expect(try await mailer.mailDue() == 0, "not an hour yet")
            app.clock.advance(by: 3601)
            #expect(try await mailer.mailDue() == 1)
            #expect(try await mailer.mailDue() == 0, "told once")
            let mail = try #require(try await Self.queued(app, kind: "digest").first)
            #expect(mail.contains("To: <b@example.com>\r\n"))
            let unsubscribe = try #require(mail.firstMatch(of: /List-Unsubscribe: <https:\/\/chat\.example\.com(\/unsubscribe\/[^>]+)>\r\n/)).1
            #expect(mail.contains("List-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n"))
            let text = try #require(Self.part(mail, "text/plain"))
            #expect(text.contains("#general · Alice: @Bob 회의 자료 확인 부탁드려요"))
            #expect(!text.contains("멘션 없는 말"))
            #expect(text.contains("https://chat.example.com/w/\(wid)/c/\(general)?around="))

            // A direct message too; someone who reads it in time gets nothing.
            try await a.get("/w/\(wid)/dm/\(bob)")
            _ = try await a.post("/w/\(wid)/dm/\(bob)/messages", [("content", "개인 메시지")])
            app.clock.advance(by: 3601)
            #expect(try await mailer.mailDue() == 1)
            let second = try await Self.queued(app, kind: "digest")[1]
            #expect(Self.part(second, "text/plain")?.contains("Alice: 개인 메시지") == true)

            // One click, no cookie, no CSRF token: no more digests.
            let confirm = try await app.browser().get(String(unsubscribe))
            #expect(confirm.status == .ok && confirm.text.contains("Stop the digest mails"))
            let clicked = try await app.client.execute(uri: String(unsubscribe), method: .post,
                                                       headers: [.contentType: "application/x-www-form-urlencoded"],
                                                       body: ByteBuffer(string: "List-Unsubscribe=One-Click"))
            #expect(clicked.status == .seeOther)
            #expect(try await app.count("SELECT mail_digest FROM users WHERE id = ?", [bob]) == 0)
            _ = try await MessagingTests.say(a, path, "@Bob 또 멘션")
            app.clock.advance(by: 3601)
            #expect(try await mailer.mailDue() == 0)
            // A forged link is a 404; the profile turns it back on.
            #expect(try await app.browser().get("/unsubscribe/\(bob).forged").status == .notFound)
            let profile = try await b.get("/profile")
            #expect(profile.text.contains(#"<input type="checkbox" name="digest" value="on"> Email me the mentions"#))
            _ = try await b.post("/profile/mail", [("digest", "on")])
            #expect(try await app.count("SELECT mail_digest FROM users WHERE id = ?", [bob]) == 1)
        }
    }

    @Test("the owner sees invitation mail given up on, with why; members do not")
    func failuresShown() async throws {
        try await Self.withMail().run { app in
            let (a, b, wid, _) = try await MessagingTests.team(app)
            try await a.get("/w/\(wid)/members")
            _ = try await a.post("/w/\(wid)/members", [("email", "bounce@example.com")])
            let id = try await app.count("SELECT MAX(id) FROM mail_outbox")
            // The sender's own first try (nothing listens on port 9) is recorded first, so it
            // cannot land after the failure this test writes and replace its error.
            #expect(await eventually { (try? await app.count("SELECT attempts FROM mail_outbox WHERE id = ?", [id])) ?? 0 >= 1 })
            try await app.services.mailOutbox.markFailed(Int64(id), error: "the mail server answered 550 to RCPT TO: no such user",
                                                         reason: .refused, next: nil)
            let page = try await a.get("/w/\(wid)/members")
            #expect(page.text.contains("Invitation mail that could not be delivered"))
            #expect(page.text.contains("<strong>bounce@example.com</strong>"))
            #expect(page.text.contains("Could not deliver to bounce@example.com: the mail server refused it."))
            // The server's own words (its reply, its host and port) stay in the log.
            #expect(!page.text.contains("answered 550") && !page.text.contains("RCPT TO"))
            #expect(!(try await b.get("/w/\(wid)/members")).text.contains("bounce@example.com"))
            // Given up on: its text is gone (a reset link would be a secret).
            #expect(try await app.count("SELECT LENGTH(message) FROM mail_outbox WHERE id = ?", [id]) == 0)
            #expect(try app.services.mailOutbox.failures().map(\.recipient) == ["bounce@example.com"])

            // Resent, and this time delivered: the failure is no longer listed, here or for administrators.
            app.clock.advance(by: InvitationLimits.resendCooldown)
            _ = try await a.post("/w/\(wid)/members", [("email", "bounce@example.com")])
            let resent = try await app.count("SELECT MAX(id) FROM mail_outbox")
            #expect(resent > id)
            try await app.services.mailOutbox.markSent(Int64(resent))
            #expect(!(try await a.get("/w/\(wid)/members")).text.contains("Could not deliver"))
            #expect(try app.services.mailOutbox.failures().isEmpty)
        }
    }

    @Test("invitations: a few an hour per owner and workspace, and one address mailed again only after ten minutes")
    func invitationLimits() async throws {
        try await Self.withMail { $0.invitationsPerHour = 3 }.run { app in
            let owner = try await app.signedInBrowser(email: "owner@example.com", nickname: "Owner")
            let wid = try await owner.createWorkspace("Limits")
            try await owner.get("/w/\(wid)/members")
            for n in 1...3 {
                #expect(try await owner.post("/w/\(wid)/members", [("email", "guest\(n)@example.com")]).status == .ok)
            }
            let fourth = try await owner.post("/w/\(wid)/members", [("email", "guest4@example.com")])
            #expect(fourth.status == .tooManyRequests && fourth.headers[.retryAfter] != nil)
            #expect(fourth.text.contains("You have sent as many invitations as this server allows in an hour."))
            #expect(try await app.count("SELECT COUNT(*) FROM invites") == 3)
            // The same address again at once: no second mail.
            let again = try await owner.post("/w/\(wid)/members", [("email", "guest1@example.com")])
            #expect(again.status == .tooManyRequests)
            #expect(again.text.contains("An invitation was mailed to guest1@example.com a few minutes ago. You can send it again in 10 min."))
            let iid = try await app.count("SELECT MIN(id) FROM invites")
            let resend = try await owner.post("/w/\(wid)/invitations/\(iid)/resend")
            #expect(resend.status == .tooManyRequests)
            #expect(try await Self.queued(app, kind: "invitation").count == 3)
            // Ten minutes on, it goes again; an hour on, new invitations too.
            app.clock.advance(by: 601)
            #expect(try await owner.post("/w/\(wid)/invitations/\(iid)/resend").status == .ok)
            #expect(try await Self.queued(app, kind: "invitation").count == 4)
            app.clock.advance(by: 3000)
            #expect(try await owner.post("/w/\(wid)/members", [("email", "guest4@example.com")]).status == .ok)
        }
    }

    @Test("a mail server that cannot be reached, stalls, or hangs up: each told apart, a stall within the step's time",
          .timeLimit(.minutes(1)))
    func failureReasons() async throws {
        var settings = SMTPSettings(host: "127.0.0.1", port: 9, security: .startTLSWhenOffered)
        settings.stepTimeout = .milliseconds(500)
        #expect(await Self.reason(SMTPClient(settings: settings)) == .unreachable)
        let stalled = try SilentListener(greeting: nil)
        settings.port = stalled.port
        let started = ContinuousClock.now
        let error = await Self.failure(SMTPClient(settings: settings))
        #expect(error?.reason == .timedOut)
        #expect(error?.description == "the mail server did not answer the greeting in time")
        // Well within the client's own default step time (30 s), however loaded the machine: the
        // full suite once took 5.2 s here for a 0.5 s step.
        #expect(ContinuousClock.now - started < .seconds(15))
        let hangsUp = try SilentListener(greeting: "220 mail.internal.example ESMTP\r\n", thenClose: true)
        settings.port = hangsUp.port
        #expect(await Self.reason(SMTPClient(settings: settings)) == .closed)
        for reason in SMTPFailureReason.allCases {
            for lang in [Lang.ko, .en] {
                let text = lang.strings.format("mail_failure_\(reason.rawValue)", "x@example.com")
                #expect(text.contains("x@example.com") && !text.contains("mail_failure"), "\(lang) \(reason)")
            }
        }
    }

    static func failure(_ client: SMTPClient) async -> SMTPError? {
        do {
            try await client.send("Subject: x\r\n\r\nx", from: "a@example.com", to: ["b@example.com"])
            return nil
        } catch {
            return error as? SMTPError
        }
    }

    static func reason(_ client: SMTPClient) async -> SMTPFailureReason? { await failure(client)?.reason }
}

/// A TCP listener on loopback that takes one connection and says `greeting` (or nothing), then
/// hangs up or keeps silent: a mail server gone wrong.
final class SilentListener: @unchecked Sendable {
    let port: Int
    private let descriptor: Int32
    private let accepted = Accepted()

    private final class Accepted: Sendable {
        let descriptor = Mutex<Int32>(-1)
    }

    init(greeting: String?, thenClose: Bool = false) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.descriptor = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) } }
        listen(descriptor, 4)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        let (listening, kept) = (descriptor, accepted)
        Thread.detachNewThread {
            let client = accept(listening, nil, nil)
            guard client >= 0 else { return }
            if let greeting { _ = greeting.utf8CString.withUnsafeBufferPointer { write(client, $0.baseAddress, greeting.utf8.count) } }
            if thenClose { close(client) } else { kept.descriptor.withLock { $0 = client } }
        }
    }

    deinit {
        let client = accepted.descriptor.withLock { $0 }
        if client >= 0 { close(client) }
        close(descriptor)
    }
}
