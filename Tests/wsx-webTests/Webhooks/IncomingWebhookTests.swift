import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import SlackFormat
import Testing
@testable import wsx_web

/// Slack-compatible incoming webhooks: made on a channel's settings page, posting as a bot.
@Suite("Incoming webhooks", .timeLimit(.minutes(3)))
struct IncomingWebhookTests {
    /// Posts `body` to a hook's URL (path and all) as a tool would: no cookie, no CSRF token.
    static func deliver(_ app: TestSession, _ url: String, json: String? = nil, form: String? = nil) async throws -> (HTTPResponse.Status, String) {
        let path = try #require(URL(string: url)?.path)
        var headers = HTTPFields()
        headers[.contentType] = json != nil ? "application/json" : "application/x-www-form-urlencoded"
        let response = try await app.client.executeRequest(uri: path, method: .post, headers: headers,
                                                           body: ByteBuffer(string: json ?? form ?? ""))
        return (response.status, String(buffer: response.body))
    }

    /// The member's new hook in the channel: its URL, from the page that shows it once.
    static func makeHook(_ member: TestBrowser, _ wid: Int64, _ cid: Int64, name: String) async throws -> String {
        _ = try await member.get("/w/\(wid)/c/\(cid)/settings")
        let page = try await member.post("/w/\(wid)/c/\(cid)/webhooks", [("name", name)])
        #expect(page.status == .ok)
        return String(try #require(page.text.firstMatch(of: /id="webhook-url" type="text" readonly value="([^"]+)"/)?.1))
    }

    @Test("a member makes a hook; a JSON post answers ok and shows as the hook's bot, marked as one; the URL is shown once and never logged")
    func post() async throws {
        try await TestApp().run { app in
            let (owner, member, wid) = try await ChannelTests.team(app)
            let cid = try await owner.createChannel(in: wid, "배포")
            try await member.get("/w/\(wid)/channels")
            try await member.post("/w/\(wid)/c/\(cid)/join")
            let url = try await Self.makeHook(member, wid, cid, name: "CI 봇")
            #expect(url.hasPrefix("http") && url.contains("/hooks/"))
            let token = String(url.split(separator: "/").last!)
            #expect(!(try await member.get("/w/\(wid)/c/\(cid)/settings").text.contains(token)), "shown once")

            let (status, answer) = try await Self.deliver(app, url, json: #"{"text": "빌드 *성공*: <https://ci.example/1|#1> ~취소~ 없음", "username": "ignored"}"#)
            #expect(status == .ok && answer == "ok")
            let page = try await owner.get("/w/\(wid)/c/\(cid)")
            #expect(page.text.contains(#"class="message-author">CI 봇</"#) || page.text.contains(">CI 봇</a>"))
            #expect(page.text.contains(#"<span class="bot-badge local-text" lang="ko">봇</span>"#))
            #expect(!page.text.contains("ignored"), "a payload's username names no one: the hook is the author")
            #expect(page.text.contains("<strong>성공</strong>") && page.text.contains(#"href="https://ci.example/1""#))
            #expect(page.text.contains("<del>취소</del>") || page.text.contains("<s>취소</s>"))
            #expect(!app.logs.all.contains { $0.contains(token) }, "the token is never logged")
            let audit = try await owner.get("/w/\(wid)/audit")
            #expect(audit.text.contains("webhook.create") || audit.text.contains("CI 봇"))
        }
    }

    @Test("Slack's refusals: no_service for an unknown URL, invalid_payload, no_text; a form's payload= field works; revoking ends the URL and renewing replaces it")
    func refusalsAndLifecycle() async throws {
        try await TestApp().run { app in
            let (owner, member, wid) = try await ChannelTests.team(app)
            let general = Int64(try await app.count("SELECT id FROM rooms WHERE workspace_id = ? AND is_default = TRUE", [wid]))
            let url = try await Self.makeHook(member, wid, general, name: "모니터")
            let (unknown, text) = try await Self.deliver(app, "http://x/hooks/not-a-hook", json: #"{"text":"x"}"#)
            #expect(unknown == .notFound && text == "no_service")
            #expect(try await Self.deliver(app, url, json: "not json") == (.badRequest, "invalid_payload"))
            #expect(try await Self.deliver(app, url, json: #"{"text": "   "}"#) == (.badRequest, "no_text"))
            let form = "payload=" + (#"{"text":"폼으로 보낸 알림"}"#.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
            #expect(try await Self.deliver(app, url, form: form) == (.ok, "ok"))
            #expect(try await owner.get("/w/\(wid)/c/\(general)").text.contains("폼으로 보낸 알림"))

            // The member made it; the workspace's owner may renew or revoke any.
            let settings = try await owner.get("/w/\(wid)/c/\(general)/settings")
            let renew = String(try #require(settings.text.firstMatch(of: /action="(\/w\/\d+\/c\/\d+\/webhooks\/\d+\/renew)"/)?.1))
            let renewed = try await owner.post(renew)
            let newURL = String(try #require(renewed.text.firstMatch(of: /id="webhook-url" type="text" readonly value="([^"]+)"/)?.1))
            #expect(try await Self.deliver(app, url, json: #"{"text":"옛 주소"}"#).0 == .notFound)
            #expect(try await Self.deliver(app, newURL, json: #"{"text":"새 주소"}"#) == (.ok, "ok"))
            let revoke = renew.replacingOccurrences(of: "/renew", with: "/revoke")
            #expect(try await owner.post(revoke).status == .seeOther)
            #expect(try await Self.deliver(app, newURL, json: #"{"text":"폐기 뒤"}"#).0 == .notFound)
            #expect(try await owner.get("/w/\(wid)/c/\(general)").text.contains("새 주소"), "its messages stay")
        }
    }

    @Test("only its maker, the channel's manager or the workspace's owner renews or revokes a hook; outsiders of a channel make none")
    func permissions() async throws {
        try await TestApp().run { app in
            let (owner, member, wid) = try await ChannelTests.team(app)
            let general = Int64(try await app.count("SELECT id FROM rooms WHERE workspace_id = ? AND is_default = TRUE", [wid]))
            _ = try await Self.makeHook(owner, wid, general, name: "주인 훅")
            let settings = try await member.get("/w/\(wid)/c/\(general)/settings")
            #expect(settings.text.contains("주인 훅") && !settings.text.contains("/renew\""), "a member sees it, without its controls")
            let hookId = try #require(try app.database.query { tx in try tx.webhooks.webhooks(roomId: general).first?.id })
            #expect(try await member.post("/w/\(wid)/c/\(general)/webhooks/\(hookId)/revoke").status == .forbidden)
            let cid = try await owner.createChannel(in: wid, "비공개 아님")
            _ = try await member.get("/w/\(wid)/c/\(cid)/settings")
            #expect(try await member.post("/w/\(wid)/c/\(cid)/webhooks", [("name", "남의 채널")]).status == .forbidden)
        }
    }
}

/// Slack's payloads as wsx Markdown (the mrkdwn itself is the Slack import's converter,
/// `SlackFormatTests`).
@Suite("Slack payloads", .timeLimit(.minutes(5)))
struct SlackPayloadTests {
    static func markdown(_ body: String, form: Bool = false) throws -> String {
        try SlackPayload(body: Data(body.utf8), contentType: form ? "application/x-www-form-urlencoded" : "application/json",
                         mrkdwn: SlackToMarkdown(person: { _ in nil }, channel: { _ in nil })).markdown
    }

    @Test("text is mrkdwn: bold, strike, links and broadcasts become Markdown; a form's payload= field is read the same")
    func text() throws {
        #expect(try Self.markdown(#"{"text": "*굵게* ~취소~ <https://a.example|보기> <!here>"}"#) == "**굵게** ~~취소~~ [보기](https://a.example) @here")
        let form = "payload=" + (#"{"text":"*폼*"}"#.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        #expect(try Self.markdown(form, form: true) == "**폼**")
        #expect(throws: SlackPayload.Invalid.self) { try Self.markdown("[1, 2]") }
        #expect(throws: SlackPayload.Invalid.self) { try Self.markdown("text=hi", form: true) }
    }

    @Test("attachments become quoted sections; with blocks the text is only the fallback; unknown fields and blocks are ignored")
    func attachmentsAndBlocks() throws {
        let attached = try Self.markdown("""
            {"text": "배포", "unknown": 1, "attachments": [{"pretext": "알림", "title": "빌드 #12", "title_link": "https://ci.example/12",
             "text": "*통과*", "fields": [{"title": "브랜치", "value": "main", "short": true}], "footer": "CI"}]}
            """)
        #expect(attached == "배포\n\n알림\n\n> **[빌드 #12](https://ci.example/12)**\n> **통과**\n> **브랜치**: main\n> _CI_")
        let blocks = try Self.markdown("""
            {"text": "fallback only", "blocks": [{"type": "header", "text": {"type": "plain_text", "text": "장애"}},
             {"type": "section", "text": {"type": "mrkdwn", "text": "*DB* 느림"}, "fields": [{"type": "mrkdwn", "text": "*p99*: 2s"}]},
             {"type": "divider"}, {"type": "context", "elements": [{"type": "mrkdwn", "text": "모니터링"}]},
             {"type": "actions", "elements": []}]}
            """)
        #expect(blocks == "**장애**\n\n**DB** 느림\n**p99**: 2s\n\n———\n\n_모니터링_")
        #expect(!blocks.contains("fallback"))
    }
}
