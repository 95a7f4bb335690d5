import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// Why a fetch for a link preview was not made or not finished. Every one is ordinary (a
/// preview is a nicety): the message stays as it is, without a card.
public enum FetchRefusal: Error, Equatable, Sendable {
    /// Not an absolute `http` or `https` URL with a host.
    case notHTTP
    case unresolvable(String)
    /// The host (or the address a redirect led to) is not a public address.
    case forbiddenAddress(host: String, address: String)
    case tooManyRedirects
    /// The answer was larger than the limit.
    case tooLarge
    case timedOut
    /// Not a 2xx answer (a redirect without a usable `Location` included).
    case status(Int)
}

/// What a fetch brought back.
public struct FetchedResource: Sendable, Equatable {
    /// Where the bytes came from, after redirects.
    public let url: URL
    /// The `Content-Type` header's media type, lowercased, without parameters.
    public let mediaType: String
    public let body: [UInt8]
    /// Whether the body stopped at the byte limit (for a page, its head is still readable).
    public let isTruncated: Bool
}

/// Fetches a URL for a link preview without letting a message reach inside the server's
/// network: only `http`/`https`; the host is looked up here and every address it has must be
/// public (unless the operator listed the host), then the connection goes to one of those checked
/// addresses (the client is told which, so TLS still checks the certificate against the name,
/// and the request goes out with the host written exactly as it was checked, so the client's
/// own lookup of the override can never miss and resolve the name again);
/// redirects are not followed by the client but checked and taken here, a few at most; the
/// whole chain has one deadline; the body stops at a byte limit.
public struct SafeFetcher: Sendable {
    /// Host names (lowercased) allowed to resolve to non-public addresses: an operator's own
    /// services, and the tests' local server.
    public let allowedHosts: Set<String>
    public let timeout: Duration
    public let maximumBytes: Int
    public let maximumRedirects: Int
    let resolver: HostResolver
    let eventLoopGroup: any EventLoopGroup

    public init(allowedHosts: Set<String> = [], timeout: Duration = .seconds(5), maximumBytes: Int = 1 << 20,
                maximumRedirects: Int = 5, resolver: HostResolver = HostResolver(), eventLoopGroup: any EventLoopGroup) {
        self.allowedHosts = Set(allowedHosts.map { $0.lowercased() })
        self.timeout = timeout
        self.maximumBytes = maximumBytes
        self.maximumRedirects = maximumRedirects
        self.resolver = resolver
        self.eventLoopGroup = eventLoopGroup
    }

    /// Fetches `url` (GET), following at most `maximumRedirects` checked redirects, within
    /// `timeout` in all. `oversize` says what a body over the limit is: cut there, or refused.
    public func fetch(_ url: URL, accept: String, oversize: Oversize = .refuse) async throws -> FetchedResource {
        let deadline = NIODeadline.now() + .milliseconds(Int64(timeout / .milliseconds(1)))
        var current = url
        for _ in 0...maximumRedirects {
            let answer = try await fetchOnce(current, accept: accept, oversize: oversize, deadline: deadline)
            switch answer {
            case .resource(let resource): return resource
            case .redirect(let next): current = next
            }
        }
        throw FetchRefusal.tooManyRedirects
    }

    /// What to do with a body larger than `maximumBytes`.
    public enum Oversize: Sendable {
        /// Keep its first `maximumBytes` (a page's head is at its start).
        case truncate
        /// Refuse it (an image cut short is no image).
        case refuse
    }

    private enum Answer {
        case resource(FetchedResource)
        case redirect(URL)
    }

    /// What a push service (or any receiver of a `post`) answered.
    public struct PostAnswer: Sendable, Equatable {
        public let status: Int
        /// Its `Retry-After` header, if any (seconds or an HTTP date).
        public let retryAfter: String?
    }

    /// Posts `body` to `url` once (no redirects), to a checked address as `fetch` does, within
    /// `timeout`; any status is an answer, for the caller to judge.
    public func post(_ url: URL, headers: [(String, String)], body: [UInt8]) async throws -> PostAnswer {
        let deadline = NIODeadline.now() + .milliseconds(Int64(timeout / .milliseconds(1)))
        return try await withCheckedClient(url, deadline: deadline) { client, pinned in
            var request = HTTPClientRequest(url: pinned.absoluteString)
            request.method = .POST
            for (name, value) in headers { request.headers.add(name: name, value: value) }
            request.headers.add(name: "Content-Length", value: String(body.count))
            request.body = .bytes(ByteBuffer(bytes: body))
            let response = try await client.execute(request, deadline: deadline)
            // The answer's body says nothing the caller needs; a little of it is read so the
            // connection closes cleanly.
            var read = 0
            for try await chunk in response.body {
                read += chunk.readableBytes
                if read > 4096 { break }
            }
            return PostAnswer(status: Int(response.status.code), retryAfter: response.headers.first(name: "Retry-After"))
        }
    }

    private func fetchOnce(_ url: URL, accept: String, oversize: Oversize, deadline: NIODeadline) async throws -> Answer {
        try await withCheckedClient(url, deadline: deadline) { client, pinned in
            try await exchange(client, url: pinned, accept: accept, oversize: oversize, deadline: deadline)
        }
    }

    /// Runs `body` with a client bound to a checked address of `url`'s host, and `url` as that
    /// client must be given it; timeouts and refusals come out as `FetchRefusal`.
    private func withCheckedClient<T: Sendable>(_ url: URL, deadline: NIODeadline,
                                                _ body: (HTTPClient, URL) async throws -> T) async throws -> T {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let rawHost = url.host(percentEncoded: false), !rawHost.isEmpty
        else { throw FetchRefusal.notHTTP }
        let host = rawHost.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        // The client finds its address override by the host of the URL it is given, spelled as
        // it is there: `Rebind.example` missed the override of `rebind.example` and was looked up
        // again, and a rebinding name answered loopback the second time. The URL it gets has the
        // host as checked, and is refused if the client would read any other.
        guard let pinned = Self.url(url, host: host) else { throw FetchRefusal.notHTTP }
        let address = try await withDeadline(deadline) { try await checkedAddress(of: host) }
        // The chain's deadline is the only clock: a connect or read timeout of the client's own
        // would end a fetch the caller gave longer (a loaded machine once took more than 5 s
        // on one loopback hop of a chain given 60).
        let perHop = TimeAmount.nanoseconds(Int64(timeout / .nanoseconds(1)))
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow,
                                                     timeout: .init(connect: perHop, read: perHop))
        if address != host { configuration.dnsOverride = [host: address] }
        let client = HTTPClient(eventLoopGroupProvider: .shared(eventLoopGroup), configuration: configuration)
        do {
            let answer = try await body(client, pinned)
            try await client.shutdown()
            return answer
        } catch {
            try? await client.shutdown()
            if let refusal = error as? FetchRefusal { throw refusal }
            if let clientError = error as? HTTPClientError, clientError == .deadlineExceeded || clientError == .readTimeout
                || clientError == .connectTimeout {
                throw FetchRefusal.timedOut
            }
            throw error
        }
    }

    /// `url` with its host written as `host` (lowercased, as checked), or nil when the result
    /// would be read back with any other host.
    static func url(_ url: URL, host: String) -> URL? {
        // An address literal is connected to as it is: there is nothing to look up.
        if AddressPolicy.ipv4(host) != nil || AddressPolicy.ipv6(host) != nil { return url }
        guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: true),
              host.utf8.allSatisfy({ $0 < 0x80 && $0 != UInt8(ascii: "%") }) else { return nil }
        parts.host = host
        guard let rebuilt = parts.url, URL(string: rebuilt.absoluteString)?.host == host else { return nil }
        return rebuilt
    }

    /// `body`'s answer, or `timedOut` at `deadline` (a lookup the system resolver is stuck in is
    /// left to finish on its own thread).
    private func withDeadline<T: Sendable>(_ deadline: NIODeadline, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                let left = deadline - .now()
                if left > .zero { try await Task.sleep(for: .nanoseconds(left.nanoseconds)) }
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else { throw FetchRefusal.timedOut }
            return value
        }
    }

    /// The address to connect to for `host`: the literal itself, or the first of its looked-up
    /// addresses, once every one of them is found public (or the host is allowed).
    func checkedAddress(of host: String) async throws -> String {
        let isLiteral = AddressPolicy.ipv4(host) != nil || AddressPolicy.ipv6(host) != nil
        let addresses = isLiteral ? [host] : try await resolver.addresses(of: host)
        guard !allowedHosts.contains(host) else { return addresses[0] }
        if let refused = addresses.first(where: { !AddressPolicy.isPublic($0) }) {
            throw FetchRefusal.forbiddenAddress(host: host, address: refused)
        }
        return addresses[0]
    }

    private func exchange(_ client: HTTPClient, url: URL, accept: String, oversize: Oversize,
                          deadline: NIODeadline) async throws -> Answer {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.headers.add(name: "Accept", value: accept)
        request.headers.add(name: "Accept-Encoding", value: "identity")
        request.headers.add(name: "User-Agent", value: "wsx-link-preview/1 (+self-hosted chat)")
        let remaining = deadline - .now()
        guard remaining > .zero else { throw FetchRefusal.timedOut }
        let response = try await client.execute(request, deadline: deadline)
        let code = Int(response.status.code)
        if (300..<400).contains(code) {
            guard let location = response.headers.first(name: "Location"),
                  let next = URL(string: location, relativeTo: url)?.absoluteURL
            else { throw FetchRefusal.status(code) }
            return .redirect(next)
        }
        guard (200..<300).contains(code) else { throw FetchRefusal.status(code) }
        var body: [UInt8] = []
        var truncated = false
        for try await chunk in response.body {
            body.append(contentsOf: chunk.readableBytesView)
            if body.count > maximumBytes {
                guard oversize == .truncate else { throw FetchRefusal.tooLarge }
                body.removeLast(body.count - maximumBytes)
                truncated = true
                break
            }
        }
        let mediaType = (response.headers.first(name: "Content-Type") ?? "").split(separator: ";").first
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        return .resource(FetchedResource(url: url, mediaType: mediaType, body: body, isTruncated: truncated))
    }
}
