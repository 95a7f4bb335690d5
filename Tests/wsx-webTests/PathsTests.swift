import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import wsx_web

/// Every link the server writes comes from `Paths`, and `Paths` is what the router serves.
@Suite("Paths", .timeLimit(.minutes(5)))
struct PathsTests {
    @Test("the router serves exactly the routes Paths lists, so no link can point at a route that does not exist")
    func routerAgreesWithPaths() async throws {
        try await StoreTests.sandbox().run { app in
            let router = buildRouter(app.services)
            // Static assets are served under a wildcard and linked by `StaticAssets`.
            let served = Set(router.routes.map { "\($0.path)" }).subtracting(["/static/**"])
            let listed = Set(Paths.all.map(\.pattern))
            #expect(served.subtracting(listed).isEmpty, "served but not in Paths: \(served.subtracting(listed).sorted())")
            #expect(listed.subtracting(served).isEmpty, "in Paths but not served: \(listed.subtracting(served).sorted())")
            #expect(listed.count == Paths.all.count, "a route is listed twice")
        }
    }

    @Test("Paths.all names every route declared in Paths")
    func everyRouteListed() throws {
        let source = try String(contentsOf: SourceRulesTests.sources.appendingPathComponent("App/Route.swift"), encoding: .utf8)
        let declared = source.matches(of: /static let \w+ = (PlainRoute|Route<[^>]*>)\(/).count
        #expect(declared == Paths.all.count)
    }

    @Test("links fill each parameter in order and keep each value one segment: ids, tokens, Korean file names")
    func links() {
        #expect(Paths.root() == "/")
        #expect(Paths.workspaces() == "/workspaces")
        #expect(Paths.channel(3, 42) == "/w/3/c/42")
        #expect(Paths.removeMember(3, 7) == "/w/3/members/7/remove")
        #expect(Paths.channel(3, 42, fragment: "m-9") == "/w/3/c/42#m-9")
        #expect(Paths.search(3, query: "q=%EA%B0%80") == "/w/3/search?q=%EA%B0%80")
        #expect(Paths.file(5, "보고서 최종.pdf") == "/files/5/%EB%B3%B4%EA%B3%A0%EC%84%9C%20%EC%B5%9C%EC%A2%85.pdf")
        // A name cannot add segments, a query or a fragment, or smuggle an escape.
        #expect(Paths.file(5, "../a/b?c#d%2F") == "/files/5/..%2Fa%2Fb%3Fc%23d%252F")
        #expect(Paths.invite("AbC-_09") == "/invite/AbC-_09")
        // A path is matched to its route segment by segment.
        #expect(Paths.channelMessages.matches("/w/3/c/42/messages"))
        #expect(Paths.directMessagePost.matches("/w/3/dm/7/messages"))
        #expect(Paths.root.matches("/") && Paths.profile.matches("/profile"))
        for other in ["/w/3/c/42", "/w/3/c//messages", "/w/3/c/42/messages/", "w/3/c/42/messages", "/w/3/dm/7/messages"] {
            #expect(!Paths.channelMessages.matches(other), "\(other)")
        }
        // Query values keep a path readable and escape everything that would end or split them.
        #expect(Paths.query(["next": "/w/1/search?q=a&b=c#x"]) == "next=/w/1/search%3Fq%3Da%26b%3Dc%23x")
        #expect(Paths.query(["q": "회의 실", "n": "a+b"]) == "q=%ED%9A%8C%EC%9D%98%20%EC%8B%A4&n=a%2Bb")
        // Escaped byte for byte as Foundation escaped them (the first implementation).
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/")
        for value in ["", "plain-Value_1.~/", "%41 +&=?#;", "👩‍👩‍👧 é e\u{301} \u{7F}\u{0}\n", "한글/회의록.pdf", "\"<'>`"] {
            #expect(Paths.percentEncoded(value) == value.addingPercentEncoding(withAllowedCharacters: allowed), "\(value)")
        }
    }
}

/// Every link on the main pages leads somewhere.
@Suite("Links on the pages", .timeLimit(.minutes(5)))
struct PageLinksTests {
    /// The same-site links of a page, without fragments, as a browser would follow them (not
    /// those of the `<template>`s its scripts clone, which hold an id slot, not an id).
    static func links(in html: String) -> [String] {
        html.replacing(/<template id="tpl-[^"]*">.*?<\/template>/.dotMatchesNewlines(), with: "")
            .matches(of: /href="([^"]*)"/).compactMap { match in
            let link = String(match.1).replacingOccurrences(of: "&amp;", with: "&")
            guard link.hasPrefix("/"), !link.hasPrefix("//") else { return nil }
            return String(link.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0])
        }.filter { !$0.isEmpty }
    }

    @Test("following every same-site link from the main pages, two clicks deep, never reaches an error", arguments: ["en", "ko"])
    func everyLinkLeadsSomewhere(language: String) async throws {
        try await TestApp { $0.workspacePrice = 0 }.run { app in
            let owner = try await app.signedInBrowser(email: "o@example.com", nickname: "Owner")
            let mate = try await app.signedInBrowser(email: "m@example.com", nickname: "민아")
            _ = try await owner.post("/lang", [("lang", language), ("next", "/workspaces")])
            let wid = try await owner.createWorkspace("디자인")
            let cid = try await owner.createChannel(in: wid, "회의", description: "weekly")
            try await app.addMember(email: "m@example.com", to: wid, by: owner)
            let mateId = try await app.userId("m@example.com")
            _ = try await owner.get("/w/\(wid)/c/\(cid)")
            _ = try await owner.post("/w/\(wid)/c/\(cid)/messages", [("content", "안녕 https://example.com @민아")])
            _ = try await owner.get("/w/\(wid)/dm/\(mateId)")
            _ = try await owner.post("/w/\(wid)/dm/\(mateId)/messages", [("content", "DM 하나")])
            _ = try await mate.get("/workspaces")

            let starts = ["/workspaces", "/w/\(wid)", "/w/\(wid)/c/\(cid)", "/w/\(wid)/dm/\(mateId)", "/w/\(wid)/members",
                          "/w/\(wid)/channels", "/w/\(wid)/search?q=%EB%AF%BC", "/store", "/profile", "/w/\(wid)/settings",
                          "/w/\(wid)/c/\(cid)/settings", "/users/\(mateId)", "/w/\(wid)/audit"]
            var seen = Set<String>(), broken: [String] = []
            var frontier = starts
            for _ in 0..<3 where !frontier.isEmpty {
                var next: [String] = []
                for path in frontier where seen.insert(path).inserted {
                    let page = try await owner.get(path)
                    if page.status.code >= 400 { broken.append("\(path) → \(page.status.code)") }
                    if page.headers[.contentType]?.hasPrefix("text/html") == true { next += Self.links(in: page.text) }
                }
                frontier = next
            }
            #expect(broken.isEmpty, "\(broken)")
            // The crawl went past the start pages: message links, authors' profiles, the other rooms.
            #expect(seen.subtracting(starts).count >= 8, "reached: \(seen.sorted())")
            #expect(seen.contains("/users/\(try await app.userId("o@example.com"))"))
        }
    }
}
