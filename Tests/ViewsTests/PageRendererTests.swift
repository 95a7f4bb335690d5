import Assets
import Foundation
import Testing
@testable import Views

@Suite("Page renderer")
struct PageRendererTests {
    func renderer() throws -> PageRenderer {
        try PageRenderer(source: .files(EmbeddedFiles.files(in: "Templates")))
    }

    func chrome(_ lang: Lang, viewer: Viewer? = nil) -> Chrome {
        Chrome(lang: lang, csrfToken: "token-123", viewer: viewer, path: "/login", cssURL: "/static/app.css?v=1",
               scriptURLs: ["/static/app.js?v=1"], links: .sample)
    }

    @Test("user input is escaped: <script> comes out as text")
    func userInputIsEscaped() throws {
        let html = try renderer().document(.login, title: "Log in", page: LoginPage(email: "\"><script>alert(1)</script>"),
                                           chrome: chrome(.en, viewer: Viewer(id: 1, nickname: "<b>bold</b>")))
        #expect(html.contains("&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(html.contains("&lt;b&gt;bold&lt;/b&gt;"))
        #expect(!html.contains("<script>alert"))
        #expect(!html.contains("<b>bold"))
    }

    @Test("the layout carries the language, the CSRF token and the page's content")
    func layoutCarriesChrome() throws {
        let html = try renderer().document(.login, title: "로그인", page: LoginPage(), chrome: chrome(.ko))
        #expect(html.contains(#"<html lang="ko">"#))
        #expect(html.contains(#"<meta name="csrf-token" content="token-123">"#))
        #expect(html.contains("<title>로그인 · wsx</title>"))
        #expect(html.contains(#"<form method="post" action="/login""#))
        #expect(html.contains(#"<input type="hidden" name="_csrf" value="token-123">"#))
        #expect(html.contains("이메일"))
    }

    @Test("a missing templates folder stops loading with its path")
    func missingFolderIsNamed() {
        #expect {
            try PageRenderer(source: .directory("/nonexistent/templates"))
        } throws: { error in
            "\(error)" == "templates folder /nonexistent/templates does not exist"
        }
    }

    @Test("a folder missing one template stops loading with the template's name")
    func missingTemplateIsNamed() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tpl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for (name, data) in EmbeddedFiles.files(in: "Templates") where name != "login.mustache" {
            try data.write(to: folder.appendingPathComponent(name))
        }
        #expect {
            try PageRenderer(source: .directory(folder.path))
        } throws: { error in
            "\(error)" == "template login.mustache is missing"
        }
    }

    @Test("templates read from a folder are re-read when a file changes")
    func folderTemplatesReload() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tpl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for (name, data) in EmbeddedFiles.files(in: "Templates") {
            try data.write(to: folder.appendingPathComponent(name))
        }
        let renderer = try PageRenderer(source: .directory(folder.path))
        #expect(!renderer.document(.user, title: "x", page: UserPage(id: 1, nickname: "n", isViewer: false),
                                   chrome: chrome(.en)).contains("EDITED"))
        let file = folder.appendingPathComponent("user.mustache")
        try Data("<p>EDITED {{page.nickname}}</p>".utf8).write(to: file)
        // Make the change visible even on file systems with coarse timestamps.
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(5)], ofItemAtPath: file.path)
        #expect(renderer.document(.user, title: "x", page: UserPage(id: 1, nickname: "n", isViewer: false),
                                  chrome: chrome(.en)).contains("<p>EDITED n</p>"))
    }
}
