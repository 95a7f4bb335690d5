import Foundation
import Synchronization
import Hummingbird
import LocalTestSite
import NIOCore
import NIOPosix
import Testing
@testable import LinkPreviews

/// The fetcher against a real server on loopback: loopback is refused unless the host is on the
/// operator's list (how these tests reach it at all), redirects are checked hop by hop, bodies
/// stop at the limit, and the whole chain has one deadline.
@Suite("Safe fetcher", .timeLimit(.minutes(5)))
struct SafeFetcherTests {
    /// A local site: a page, redirects (to itself, to a private address, in a loop), a large
    /// body and a slow one.
    static func withSite(_ body: @Sendable (Int, LocalTestSite.Hits) async throws -> Void) async throws {
        try await LocalTestSite.run({ router in
            router.get("/page") { _, _ in
                Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
                         body: .init(byteBuffer: ByteBuffer(string: #"<head><meta property="og:title" content="회의 안내"></head>"#)))
            }
            router.get("/to-page") { _, _ in Response(status: .found, headers: [.location: "/page"]) }
            router.get("/to-private") { _, _ in Response(status: .movedPermanently, headers: [.location: "http://10.0.0.1/secret"]) }
            router.get("/to-metadata") { _, _ in
                Response(status: .temporaryRedirect, headers: [.location: "http://169.254.169.254/latest/meta-data/"])
            }
            router.get("/loop") { _, _ in Response(status: .found, headers: [.location: "/loop"]) }
            router.get("/large") { _, _ in
                Response(status: .ok, headers: [.contentType: "text/html"],
                         body: .init(byteBuffer: ByteBuffer(repeating: UInt8(ascii: "a"), count: 3 << 20)))
            }
            router.get("/slow") { _, _ in
                try await Task.sleep(for: .seconds(3))
                return Response(status: .ok)
            }
            router.get("/six-seconds") { _, _ in
                try await Task.sleep(for: .seconds(6))
                return Response(status: .ok, headers: [.contentType: "text/html"], body: .init(byteBuffer: ByteBuffer(string: "late")))
            }
            router.get("/missing") { _, _ in Response(status: .notFound) }
        }) { base, hits in
            try await body(try #require(Int(base.split(separator: ":").last ?? "")), hits)
        }
    }

    /// A fetcher with the production timeout raised: the whole suite on two cores once held a
    /// fetch from the local site past 5 s. The timeout's own test passes a short one.
    func fetcher(allowing hosts: Set<String> = ["127.0.0.1", "localhost"], timeout: Duration = .seconds(30)) -> SafeFetcher {
        SafeFetcher(allowedHosts: hosts, timeout: timeout, eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
    }

    @Test("a listed host is fetched; its page's head is read")
    func fetchesListedHost() async throws {
        try await Self.withSite { port, _ in
            let fetched = try await fetcher().fetch(URL(string: "http://localhost:\(port)/to-page")!, accept: "text/html")
            #expect(fetched.url.path == "/page")
            #expect(fetched.mediaType == "text/html")
            #expect(PageMetadata.read(html: fetched.body, from: fetched.url).title == "회의 안내")
        }
    }

    @Test("loopback, by name or by number, is refused before any request when the host is not listed")
    func refusesLoopback() async throws {
        try await Self.withSite { port, hits in
            for url in ["http://localhost:\(port)/page", "http://127.0.0.1:\(port)/page", "http://[::1]:\(port)/page",
                        "http://0x7f000001:\(port)/page"] {
                await #expect(throws: FetchRefusal.self, "\(url)") {
                    _ = try await fetcher(allowing: []).fetch(URL(string: url)!, accept: "text/html")
                }
            }
            #expect(hits.value == 0)
        }
    }

    @Test("a redirect to a private or metadata address is refused; the listed host does not make its targets listed")
    func checksRedirects() async throws {
        try await Self.withSite { port, _ in
            for (path, address) in [("/to-private", "10.0.0.1"), ("/to-metadata", "169.254.169.254")] {
                await #expect(throws: FetchRefusal.forbiddenAddress(host: address, address: address)) {
                    _ = try await fetcher().fetch(URL(string: "http://127.0.0.1:\(port)\(path)")!, accept: "text/html")
                }
            }
            // Six hops, each a connection of its own: time enough for a loaded machine.
            await #expect(throws: FetchRefusal.tooManyRedirects) {
                _ = try await fetcher(timeout: .seconds(60)).fetch(URL(string: "http://127.0.0.1:\(port)/loop")!, accept: "text/html")
            }
            await #expect(throws: FetchRefusal.status(404)) {
                _ = try await fetcher().fetch(URL(string: "http://127.0.0.1:\(port)/missing")!, accept: "text/html")
            }
        }
    }

    @Test("a body over the limit is cut for a page and refused for an image")
    func limitsBodies() async throws {
        try await Self.withSite { port, _ in
            let url = URL(string: "http://127.0.0.1:\(port)/large")!
            let page = try await fetcher().fetch(url, accept: "text/html", oversize: .truncate)
            #expect(page.body.count == 1 << 20)
            #expect(page.isTruncated)
            await #expect(throws: FetchRefusal.tooLarge) {
                _ = try await fetcher().fetch(url, accept: "image/*", oversize: .refuse)
            }
        }
    }

    @Test("a server slower than the deadline is given up on")
    func givesUpOnSlowServers() async throws {
        try await Self.withSite { port, _ in
            await #expect(throws: FetchRefusal.timedOut) {
                _ = try await fetcher(timeout: .milliseconds(300)).fetch(URL(string: "http://127.0.0.1:\(port)/slow")!,
                                                                       accept: "text/html")
            }
        }
    }

    @Test("a fetch given longer than five seconds is not cut short by a clock of the client's own")
    func keepsTheGivenDeadline() async throws {
        try await Self.withSite { port, _ in
            let fetched = try await fetcher(timeout: .seconds(30)).fetch(URL(string: "http://127.0.0.1:\(port)/six-seconds")!,
                                                                       accept: "text/html")
            #expect(fetched.body == Array("late".utf8))
        }
    }

    @Test("only http and https", arguments: ["ftp://example.com/a", "file:///etc/passwd", "gopher://x/", "javascript:alert(1)",
                                             "http:///nohost", "data:text/html,hi"])
    func onlyHTTP(url: String) async throws {
        await #expect(throws: FetchRefusal.notHTTP) {
            _ = try await fetcher(allowing: []).fetch(try #require(URL(string: url)), accept: "text/html")
        }
    }
}

/// DNS rebinding: the address the fetcher checked is the one it connects to, however the URL
/// spells the host. A name given in capitals used to miss the client's address override (kept
/// under the lower-cased name) and be looked up a second time, when a rebinding name answers
/// loopback.
@Suite("Safe fetcher and DNS rebinding", .timeLimit(.minutes(5)))
struct RebindingTests {
    @Test("a host in any letter case connects to the address that was checked, with no second lookup",
          arguments: ["pinned.test", "Pinned.Test", "PINNED.TEST"])
    func connectsToCheckedAddress(spelling: String) async throws {
        try await SafeFetcherTests.withSite { port, hits in
            let lookups = LookupCount()
            // The only resolver that knows the name is the fetcher's own: a second lookup, by the
            // system's resolver, could not find it, and the fetch would fail.
            let resolver = HostResolver { name in
                lookups.add(name)
                guard name == "pinned.test" else { throw FetchRefusal.unresolvable(name) }
                return ["127.0.0.1"]
            }
            let fetcher = SafeFetcher(allowedHosts: ["pinned.test"], timeout: .seconds(30), resolver: resolver,
                                      eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
            let fetched = try await fetcher.fetch(URL(string: "http://\(spelling):\(port)/page")!, accept: "text/html")
            #expect(PageMetadata.read(html: fetched.body, from: fetched.url).title == "회의 안내")
            #expect(lookups.names == ["pinned.test"])
            #expect(hits.value == 1)
        }
    }

    @Test("a name that answers a public address first and loopback after is pinned to the public one it was checked for")
    func rebindingNameStaysPinned() async throws {
        try await SafeFetcherTests.withSite { port, hits in
            let lookups = LookupCount()
            let resolver = HostResolver { name in
                lookups.add(name)
                // First a public address (unreachable from here), loopback on any later lookup.
                return lookups.names.count == 1 ? ["1.1.1.1"] : ["127.0.0.1"]
            }
            let fetcher = SafeFetcher(timeout: .milliseconds(1500), resolver: resolver,
                                      eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
            await #expect(throws: (any Error).self) {
                _ = try await fetcher.fetch(URL(string: "http://Rebind-Upper.rebind.test:\(port)/page")!, accept: "text/html")
            }
            #expect(lookups.names == ["rebind-upper.rebind.test"])
            #expect(hits.value == 0, "the loopback site was reached")
        }
    }
}

/// The names a test resolver was asked for, in order.
final class LookupCount: Sendable {
    private let asked = Mutex<[String]>([])
    func add(_ name: String) { asked.withLock { $0.append(name) } }
    var names: [String] { asked.withLock { $0 } }
}
