import Foundation
import Hummingbird
import Testing
@testable import wsx_web

/// Every link the server writes comes from `Paths`, and `Paths` is what the router serves.
@Suite("Paths")
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
        // Query values keep a path readable and escape everything that would end or split them.
        #expect(Paths.query(["next": "/w/1/search?q=a&b=c#x"]) == "next=/w/1/search%3Fq%3Da%26b%3Dc%23x")
        #expect(Paths.query(["q": "회의 실", "n": "a+b"]) == "q=%ED%9A%8C%EC%9D%98%20%EC%8B%A4&n=a%2Bb")
    }
}
