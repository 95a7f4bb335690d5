import Foundation
import HTTPTypes
import HummingbirdTesting
import Mail
import NIOFoundationEssentialsCompat
import SlackFormat
import Testing
import Views
@testable import wsx_web

/// `wsx-web import slack` on the fixture (Tests/Fixtures/slack-export): who becomes what,
/// every kind of conversation, messages with their times, threads, reactions, pins, files and
/// markup, as the pages show them; and exports that are not what Slack writes change nothing.
@Suite("Slack import", .timeLimit(.minutes(5)))
struct SlackImportTests {
    /// mina (the owner) and bob have accounts before the import; the others do not.
    static func accounts(_ app: TestSession) async throws -> (mina: TestBrowser, bob: TestBrowser) {
        let mina = try await app.signedInBrowser(email: "mina@example.com", nickname: "민아")
        let bob = try await app.signedInBrowser(email: "bob@example.com", nickname: "Bob")
        return (mina, bob)
    }

    static func room(_ app: TestSession, _ sql: String) async throws -> Int64 {
        Int64(try await app.count(sql))
    }

    @Test("people, conversations, messages, threads, reactions, pins and files come over as the pages show them")
    func importsTheFixture() async throws {
        let work = try SlackFixture.workFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let zip = try SlackFixture.zip(into: work)
        try await TestApp().run { app in
            let (mina, bob) = try await Self.accounts(app)
            let summary = try await SlackFixture.importAcme(app, zip)
            #expect(summary.isNew && summary.users == 7 && summary.matched == 2 && summary.created == 5 && summary.members == 4)
            #expect(summary.invited == 2 && summary.messages + summary.replies == 23 && summary.replies == 3)
            #expect(summary.customReactions == ["partyparrot": 1] && summary.filesKept == 1 && summary.content.filesLeft == 1)
            let wid = summary.workspaceId

            // People: matched by e-mail, made without a password and invited, or kept as authors only.
            let members = try app.database.query { tx in
                try tx.inspection.rows("""
                    SELECT users.email, role FROM workspace_members JOIN users ON users.id = user_id
                    WHERE workspace_id = ? ORDER BY users.email
                    """, [wid])
            }.map { "\($0[0]):\($0[1])" }
            #expect(members == ["bob@example.com:member", "jiho@example.com:member", "mina@example.com:owner", "sujin@example.com:member"])
            #expect(try await app.count("SELECT COUNT(*) FROM users WHERE password_hash = '' AND email LIKE '%.slack.invalid'") == 3)
            #expect(try await app.count("SELECT COUNT(*) FROM invites WHERE workspace_id = ? AND used_at IS NULL", [wid]) == 2)
            #expect(try await mina.logIn(email: "jiho@example.com", password: "").status != .seeOther)

            // Conversations: the default channel is Slack's general one; a private channel, an archived one,
            // a group, a DM, and a DM with someone no longer there kept closed.
            let general = try await Self.room(app, "SELECT id FROM rooms WHERE is_default = TRUE AND workspace_id = \(wid)")
            let dev = try await Self.room(app, "SELECT id FROM rooms WHERE name = '개발' AND workspace_id = \(wid)")
            #expect(try await app.count("SELECT COUNT(*) FROM rooms WHERE id = ? AND name = 'general' AND description = '회사 전체 공지'", [general]) == 1)
            #expect(try await app.count("SELECT COUNT(*) FROM rooms WHERE name = 'leadership' AND visibility = 'private'") == 1)
            #expect(try await app.count("SELECT COUNT(*) FROM rooms WHERE name = 'random' AND archived_at IS NOT NULL") == 1)
            #expect(try await app.count("SELECT COUNT(*) FROM rooms WHERE kind = 'group' AND workspace_id = ?", [wid]) == 1)
            #expect(try await app.count("""
                SELECT COUNT(*) FROM rooms WHERE kind = 'dm' AND workspace_id = ?
                  AND (SELECT COUNT(*) FROM room_members WHERE room_id = rooms.id) = 0
                """, [wid]) == 1)
            // sujin joined 개발 by a join message (not a message here); everyone has read the history.
            #expect(try await app.count("SELECT COUNT(*) FROM room_members WHERE room_id = ? AND user_id = ?",
                                        [dev, try await app.userId("sujin@example.com")]) == 1)
            #expect(try await app.count("SELECT COALESCE(SUM(unread_count), 0) FROM room_members") == 0)
            #expect(try await app.count("SELECT COALESCE(SUM(unread_count), 0) FROM thread_follows") == 0)

            // The channel as mina reads it: markup converted, mentions and links, the bot's and the
            // deleted user's names, the file missing from the export named, the picture retyped.
            let page = try await mina.get("/w/\(wid)/c/\(general)").text
            #expect(page.contains("<strong>환영합니다</strong> 👋"))
            #expect(page.contains(#"<span class="mention" data-user="here">@here</span>"#))
            #expect(page.contains(#"<a href="https://example.com/wiki/release" rel="noopener noreferrer nofollow" target="_blank">the wiki</a>"#))
            // A channel imported after the message that names it is linked all the same.
            #expect(page.contains(#"and <a class="channel-ref" href="/w/\#(wid)/c/\#(dev)" data-room="\#(dev)">#개발</a>"#))
            #expect(page.contains("2 &lt; 3 &amp;&amp; 5 &gt; 4"))
            #expect(page.contains("Deploy Bot") && page.contains("oldtimer") && page.contains("<strong>v1.2.3</strong>"))
            #expect(page.contains("📎 설계안.pdf — 내보낸 파일에 들어 있지 않습니다"))
            let photo = try #require(try app.database.query { tx in
                try tx.inspection.rows("SELECT id, mime FROM files WHERE original_name = 'whiteboard.jpg'", []).first
            })
            let photoId = try #require(Int64(photo[0]))
            #expect(photo[1] == "image/jpeg")
            #expect(try await app.count("SELECT COUNT(*) FROM files WHERE id = ? AND has_thumbnail = TRUE", [photoId]) == 1)
            let download = try await mina.get(Paths.file(photoId, "whiteboard.jpg"))
            #expect(download.status == .ok && Data(buffer: download.body) == Fixture.data("photo.jpg"))
            #expect(try await bob.get(Paths.file(photoId, "whiteboard.jpg")).status == .ok)

            // Times and edits: the messages keep Slack's, in order.
            let firstId = Int64(try await app.count("SELECT MIN(id) FROM messages WHERE room_id = ?", [general]))
            let first = try #require(try app.database.query { tx in try tx.messages.message(id: firstId) })
            #expect(abs(first.createdAt.timeIntervalSince1970 - 1_709_512_212.418929) < 0.002)
            #expect(try await app.count("SELECT COUNT(*) FROM messages WHERE body = 'Meeting moved to 3pm' AND edited_at IS NOT NULL") == 1)
            #expect(try await app.count("SELECT COUNT(*) FROM pins WHERE message_id = ?", [firstId]) == 1)

            // The thread: two replies, one also in the room; reactions with standard emoji, toned too.
            let root = Int64(try await app.count("SELECT id FROM messages WHERE body LIKE 'Release checklist%'"))
            #expect(try await app.count("SELECT COUNT(*) FROM messages WHERE thread_root_id = ?", [root]) == 2)
            #expect(try await app.count("SELECT COUNT(*) FROM messages WHERE thread_root_id = ? AND in_timeline = TRUE", [root]) == 1)
            let reactions = try app.database.query { tx in
                try tx.inspection.rows("SELECT emoji, users.nickname FROM reactions JOIN users ON users.id = user_id ORDER BY reactions.id", [])
            }.map { $0[0] + $0[1] }
            #expect(Set(reactions) == ["👍민아", "👍이지호", "🎉민아", "👍🏼Bob", "❤️민아"])
            let thread = try await mina.get("/w/\(wid)/m/\(root)/thread").text
            #expect(thread.contains(#"<span class="mention" data-user="\#(try await app.userId("bob@example.com"))">@Bob</span> 확인했어요 <del>잠깐만</del>"#))
            // A deleted root keeps its reply, as a placeholder.
            #expect(try await app.count("SELECT COUNT(*) FROM messages WHERE deleted_at IS NOT NULL AND body = ''") == 1)
            #expect(try await app.count("SELECT COUNT(*) FROM messages WHERE body = '원래 글은 지워졌지만 답글은 남아요' AND thread_root_id IS NOT NULL") == 1)

            // The Korean channel's code, mention and link; search finds Korean text in imported messages.
            let devPage = try await bob.get("/w/\(wid)/c/\(dev)").text
            #expect(devPage.contains("<pre><code>ok 12 tests</code></pre>"))
            #expect(devPage.contains(#"<a href="https://example.com/docs" rel="noopener noreferrer nofollow" target="_blank">https://example.com/docs</a>에"#))
            #expect(try await bob.get("/w/\(wid)/search?q=\("설계".addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed)!)").text
                .contains("안 공유합니다"))
            // A private channel stays private: the imported member sees it, and its history.
            #expect(try await bob.get("/w/\(wid)/c/\(try await Self.room(app, "SELECT id FROM rooms WHERE name = 'leadership'"))").text
                .contains("Budget talk 💰 비공개"))
            #expect(try await app.count("SELECT COUNT(*) FROM audit_log WHERE workspace_id = ? AND action = 'workspace.import'", [wid]) == 1)
        }
    }

    @Test("an export Slack would not write, an unknown owner or a bad name: a clear error, and nothing written")
    func refusals() async throws {
        let work = try SlackFixture.workFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let brokenChannels = try SlackFixture.zip(into: work, name: "channels.zip") { folder in
            try Data(#"[{"id": "C01GENERAL", "name": "general", "members": "everyone"}]"#.utf8)
                .write(to: folder.appendingPathComponent("channels.json"))
        }
        let brokenDay = try SlackFixture.zip(into: work, name: "day.zip") { folder in
            try Data(#"[{"type": "message", "ts": "yesterday", "text": "hi"}]"#.utf8)
                .write(to: folder.appendingPathComponent("random/2024-01-10.json"))
        }
        let notZip = work.appendingPathComponent("notes.zip")
        try Data("not a zip".utf8).write(to: notZip)
        let good = try SlackFixture.zip(into: work)
        try await TestApp().run { app in
            _ = try await Self.accounts(app)
            let before = try await app.workspaceSnapshot()
            let users = try await app.count("SELECT COUNT(*) FROM users")
            await #expect(throws: SlackArchiveError.badJSON("channels.json", "[0].members: expected a list")) {
                try await SlackFixture.importAcme(app, brokenChannels)
            }
            await #expect(throws: SlackArchiveError.badJSON("random/2024-01-10.json", #"a message's ts "yesterday" is not a Slack timestamp"#)) {
                try await SlackFixture.importAcme(app, brokenDay)
            }
            await #expect(throws: SlackArchiveError.notAnArchive("notes.zip")) { try await SlackFixture.importAcme(app, notZip) }
            await #expect(throws: SlackImportError.noOwner("nobody@example.com")) {
                try await SlackFixture.importer(app).run(.init(archive: good, workspaceName: "Acme", ownerEmail: "nobody@example.com"))
            }
            await #expect(throws: SlackImportError.badWorkspaceName("   ")) { try await SlackFixture.importAcme(app, good, workspace: "   ") }
            #expect(try await app.workspaceSnapshot() == before)
            #expect(try await app.count("SELECT COUNT(*) FROM users") == users)
        }
    }

    @Test("the same export into a second workspace: the people are the same accounts, authors without an address included; lines in the language asked for")
    func secondWorkspace() async throws {
        let work = try SlackFixture.workFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let zip = try SlackFixture.zip(into: work)
        try await TestApp().run { app in
            _ = try await Self.accounts(app)
            let first = try await SlackFixture.importAcme(app, zip)
            let users = try await app.count("SELECT COUNT(*) FROM users")
            // In English this time: the lines standing for files not kept are written in it.
            let second = try await SlackFixture.importer(app).run(.init(archive: zip, workspaceName: "Acme 2",
                                                                        ownerEmail: "mina@example.com", lang: .en))
            #expect(try await app.count("SELECT COUNT(*) FROM messages WHERE body LIKE '%📎 설계안.pdf — not in the export'") == 1)
            #expect(second.isNew && second.created == 0 && second.messages + second.replies == 23)
            #expect(try await app.count("SELECT COUNT(*) FROM users") == users)
            var firstCounts = try await SlackFixture.counts(app, workspace: first.workspaceId)
            firstCounts["users"] = nil
            var secondCounts = try await SlackFixture.counts(app, workspace: second.workspaceId)
            secondCounts["users"] = nil
            #expect(secondCounts == firstCounts)
        }
    }

    @Test("a message longer than one here may be comes over in pieces, cut at line ends, nothing lost")
    func longMessagesInPieces() {
        let line = String(repeating: "가나다라마바사 ", count: 20)
        let text = (0..<60).map { "\($0) \(line)" }.joined(separator: "\n")
        let parts = SlackConversationImport.parts(text)
        #expect(parts.count == 2 && parts.allSatisfy { MessageText.limit.check($0) == .fits })
        #expect(parts.joined(separator: "\n") == text)
        #expect(SlackConversationImport.parts("짧은 글") == ["짧은 글"])
        let unbroken = String(repeating: "가", count: 12_000)
        #expect(SlackConversationImport.parts(unbroken).joined() == unbroken)
    }

    @Test("when the server sends mail, the import queues each invitation's mail, once")
    func mailsInvitations() async throws {
        let work = try SlackFixture.workFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let zip = try SlackFixture.zip(into: work)
        try await TestApp().run { app in
            _ = try await Self.accounts(app)
            let composer = MailComposer(from: try #require(MailAddress.parse("wsx <wsx@chat.example.com>")),
                                        site: SiteAddress(configured: "https://chat.example.com", port: 0), clock: app.services.clock)
            let summary = try await SlackFixture.importer(app, mail: composer)
                .run(.init(archive: zip, workspaceName: "Acme", ownerEmail: "mina@example.com"))
            #expect(summary.mailed && summary.invited == 2)
            _ = try await SlackFixture.importer(app, mail: composer)
                .run(.init(archive: zip, workspaceName: "Acme", ownerEmail: "mina@example.com"))
            // Each row: kind, recipient, message.
            let mails = try app.database.query { tx in
                try tx.inspection.rows("SELECT kind, recipient, message FROM mail_outbox ORDER BY recipient", [])
            }
            #expect(mails.map { $0[1] } == ["jiho@example.com", "sujin@example.com"])
            #expect(mails.allSatisfy { $0[0] == "invitation" && $0[2].contains("To: ") })
        }
    }

    @Test("people made by the import choose their password through their invitation, and are in")
    func importedPeopleClaimTheirAccounts() async throws {
        let work = try SlackFixture.workFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let zip = try SlackFixture.zip(into: work)
        try await TestApp().run { app in
            _ = try await Self.accounts(app)
            let summary = try await SlackFixture.importAcme(app, zip)
            let nonce = try #require(try app.database.query { tx in
                try tx.inspection.rows("SELECT token_nonce FROM invites WHERE email = 'jiho@example.com'", []).first?[0]
            })
            let path = Paths.invite(app.services.serverKey.code("invite", nonce))
            let jiho = app.browser(acceptLanguage: "ko-KR,ko;q=0.9")
            let page = try await jiho.get(path)
            #expect(page.status == .ok && page.text.contains(#"id="claim-form""#) && page.text.contains("이지호"))
            #expect(!page.text.contains(#"name="nickname""#), "no sign-up form: the account exists")
            let mismatched = try await jiho.post(path, [("password", "correct horse"), ("password_confirm", "wrong horse")])
            #expect(mismatched.status == .unprocessableContent && mismatched.text.contains(#"id="claim-form""#))
            let claimed = try await jiho.post(path, [("password", "correct horse"), ("password_confirm", "correct horse")])
            #expect(claimed.status == .seeOther && claimed.location == Paths.workspace(summary.workspaceId))
            let home = try await jiho.get(Paths.workspace(summary.workspaceId))
            #expect(home.status == .ok && home.text.contains("개발"))
            // The link is used; the password signs in from now on.
            #expect(try await app.browser().get(path).status == .notFound)
            #expect(try await app.browser().logIn(email: "jiho@example.com", password: "correct horse").status == .seeOther)
        }
    }
}
