import Foundation
import Hummingbird
import HummingbirdTesting
import LocalTestSite
import NIOCore
import Testing
import Views
@testable import wsx_web

/// Link previews: the first link of a message gets a card (title, description, site, picture)
/// after the post, on every reader's page and live; the picture is one of our files, checked like
/// an upload; the author may take the card off; private addresses are fetched only for hosts the
/// operator listed (how these tests reach their local site at all).
@Suite("Link previews", .timeLimit(.minutes(5)))
struct LinkPreviewTests {
    /// A local site: a Korean article with a picture, one whose "picture" is an SVG, and a plain
    /// text file. Counts the requests it gets.
    static func withSite(_ body: @Sendable (String, LocalTestSite.Hits) async throws -> Void) async throws {
        let html = { @Sendable (image: String) in
            """
            <!doctype html><html><head><meta charset="utf-8"><title>무시</title>
            <meta property="og:title" content="3분기 워크숍 &amp; 회의 안내">
            <meta property="og:description" content="장소: 본사 5층 대회의실">
            <meta property="og:site_name" content="사내 위키">
            <meta property="og:image" content="\(image)">
            </head><body>본문</body></html>
            """
        }
        try await LocalTestSite.run({ router in
            router.get("/article") { _, _ in
                Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
                         body: .init(byteBuffer: ByteBuffer(string: html("/cover.png"))))
            }
            router.get("/svg-article") { _, _ in
                Response(status: .ok, headers: [.contentType: "text/html"], body: .init(byteBuffer: ByteBuffer(string: html("/cover.svg"))))
            }
            router.get("/cover.png") { _, _ in
                Response(status: .ok, headers: [.contentType: "image/png"],
                         body: .init(byteBuffer: ByteBuffer(bytes: Fixture.data("image.png"))))
            }
            router.get("/cover.svg") { _, _ in
                Response(status: .ok, headers: [.contentType: "image/png"],
                         body: .init(byteBuffer: ByteBuffer(bytes: Fixture.data("script.svg"))))
            }
            router.get("/notes.txt") { _, _ in
                Response(status: .ok, headers: [.contentType: "text/plain"], body: .init(byteBuffer: ByteBuffer(string: "<title>no</title>")))
            }
        }, body)
    }

    /// A new app (its own data folder) with previews on and the local site listed.
    static func listed() -> TestApp {
        TestApp { config in
            config.linkPreviews = true
            config.linkPreviewHosts = ["127.0.0.1"]
            // The whole suite beside these on two cores can hold a fetch past the 5 s default.
            config.linkPreviewTimeout = .seconds(60)
        }
    }

    static func preview(_ app: TestSession, _ mid: Int) async throws -> LinkPreview? {
        try app.database.query { tx in try tx.linkPreviews.previews(among: [Int64(mid)])[Int64(mid)] }
    }

    @Test("the first link's card comes under the message for every reader, with its picture as our file, live")
    func card() async throws {
        try await Self.withSite { site, _ in
            try await Self.listed().run { app in
                let (a, b, wid, general) = try await MessagingTests.team(app)
                let path = "/w/\(wid)/c/\(general)"
                let posted = try await MessagingTests.say(a, path, "자료는 \(site)/article 참고하세요, 그리고 \(site)/notes.txt")
                #expect(posted.status == .seeOther)
                let mid = try await app.count("SELECT MAX(id) FROM messages")
                #expect(await eventually(timeout: .seconds(60)) { (try? await Self.preview(app, mid)) != nil })
                let row = try #require(try await Self.preview(app, mid))
                #expect(row.url == "\(site)/article")
                #expect(row.title == "3분기 워크숍 & 회의 안내")
                #expect(row.siteName == "사내 위키")
                let fileId: Int64 = try #require(row.imageFileId)
                for reader in [a, b] {
                    let page = try await reader.get(path)
                    #expect(page.text.contains(#"<div class="link-preview" data-preview="\#(mid)">"#))
                    #expect(page.text.contains("3분기 워크숍 &amp; 회의 안내"))
                    #expect(page.text.contains("장소: 본사 5층 대회의실"))
                    #expect(page.text.contains(#"src="/files/\#(fileId)/thumb""#))
                    #expect(try await reader.get("/files/\(fileId)/thumb").status == .ok)
                }
                // Only its author may take it off.
                #expect(try await a.get(path).text.contains(#"action="/w/\#(wid)/m/\#(mid)/preview/remove""#))
                #expect(!(try await b.get(path)).text.contains(#"action="/w/\#(wid)/m/\#(mid)/preview/remove""#))
                // The picture is ours to serve, to the room's members only.
                let stranger = try await app.signedInBrowser(email: "s@example.com", nickname: "Stranger")
                #expect(try await stranger.get("/files/\(fileId)/thumb").status == .notFound)
                // The card went to the room as an event, without any session's token in it.
                let event = try app.database.query { tx in
                    try tx.inspection.rows("SELECT room_id, payload FROM events WHERE type = 'message.preview'", []).first
                }
                #expect(event?[0] == String(general))
                let payload: String = try #require(event?[1])
                #expect(payload.contains(#""messageId":\#(mid)"#) && payload.contains("link-preview") && !payload.contains("_csrf"))
            }
        }
    }

    @Test("the author removes the card; a teammate cannot, a stranger finds nothing")
    func removal() async throws {
        try await Self.withSite { site, _ in
            try await Self.listed().run { app in
                let (a, b, wid, general) = try await MessagingTests.team(app)
                let path = "/w/\(wid)/c/\(general)"
                try await MessagingTests.say(a, path, "\(site)/article")
                let mid = try await app.count("SELECT MAX(id) FROM messages")
                #expect(await eventually(timeout: .seconds(60)) { (try? await Self.preview(app, mid)) != nil })
                let remove = "/w/\(wid)/m/\(mid)/preview/remove"
                try await b.get(path)
                #expect(try await b.post(remove).status == .forbidden)
                let stranger = try await app.signedInBrowser(email: "s@example.com", nickname: "Stranger")
                try await stranger.get("/workspaces")
                #expect(try await stranger.post(remove).status == .notFound)
                #expect(try await Self.preview(app, mid) != nil)
                try await a.get(path)
                let removed = try await a.post(remove)
                #expect(removed.location == "\(path)?around=\(mid)#m-\(mid)")
                #expect(try await Self.preview(app, mid) == nil)
                #expect(!(try await b.get(path)).text.contains("link-preview\""))
                #expect(try await app.count("SELECT COUNT(*) FROM events WHERE type = 'message.preview' AND payload NOT LIKE '%html%'") == 1)
                // Deleting a message takes its card with it.
                try await MessagingTests.say(a, path, "\(site)/article")
                let second = try await app.count("SELECT MAX(id) FROM messages")
                #expect(await eventually(timeout: .seconds(60)) { (try? await Self.preview(app, second)) != nil })
                _ = try await a.confirm("/w/\(wid)/m/\(second)/delete")
                #expect(try await Self.preview(app, second) == nil)
            }
        }
    }

    @Test("a picture that is not an image by its bytes is left out; the card stays")
    func pictureChecked() async throws {
        try await Self.withSite { site, _ in
            try await Self.listed().run { app in
                let (a, _, wid, general) = try await MessagingTests.team(app)
                try await MessagingTests.say(a, "/w/\(wid)/c/\(general)", "\(site)/svg-article")
                let mid = try await app.count("SELECT MAX(id) FROM messages")
                #expect(await eventually(timeout: .seconds(60)) { (try? await Self.preview(app, mid)) != nil })
                let row = try #require(try await Self.preview(app, mid))
                #expect(row.imageFileId == nil)
                #expect(try await app.count("SELECT COUNT(*) FROM files") == 0)
            }
        }
    }

    @Test("an unlisted private address is never fetched; with previews off nothing is; code is never previewed")
    func neverFetched() async throws {
        try await Self.withSite { site, hits in
            try await TestApp { $0.linkPreviews = true }.run { app in
                let (a, _, wid, general) = try await MessagingTests.team(app)
                let room = try #require(try app.database.query { tx in try tx.rooms.room(id: general) })
                let written = try await app.services.messages.post(in: room, authorId: try await app.userId("a@example.com"),
                                                                   text: "\(site)/article")
                await app.services.linkPreviews.schedule(written, in: room)?.value
                #expect(hits.value == 0)
                #expect(try await Self.preview(app, Int(written.id)) == nil)
                _ = (a, wid)
            }
            try await TestApp().run { app in
                let (_, _, _, general) = try await MessagingTests.team(app)
                let room = try #require(try app.database.query { tx in try tx.rooms.room(id: general) })
                let written = try await app.services.messages.post(in: room, authorId: try await app.userId("a@example.com"),
                                                                   text: "\(site)/article")
                #expect(app.services.linkPreviews.schedule(written, in: room) == nil)
            }
            let code = MessageHTML.render("`\(site)/article` 와\n```\n\(site)/x\n```", members: .none).html
            #expect(LinkPreviewService.firstLink(inHTML: code) == nil, "\(code)")
            #expect(LinkPreviewService.firstLink(inHTML: MessageHTML.render("보세요 \(site)/a?x=1&y=2 그리고 https://b.example",
                                                                            members: .none).html)?.absoluteString
                    == "\(site)/a?x=1&y=2")
        }
    }
}
