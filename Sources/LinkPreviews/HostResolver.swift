#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NIOPosix

/// Looks a host name up in the system's resolver (getaddrinfo, on NIO's blocking-I/O pool so no
/// event loop waits), answering every address as a literal: the fetcher checks each of them and
/// connects to one it checked, never to whatever a second lookup might answer.
public struct HostResolver: Sendable {
    let pool: NIOThreadPool
    let lookUp: @Sendable (String) throws -> [String]

    public init(pool: NIOThreadPool = .singleton) {
        self.pool = pool
        lookUp = Self.lookUp
    }

    /// A resolver that answers from `lookUp` (tests: a name that answers differently each time).
    public init(pool: NIOThreadPool = .singleton, lookUp: @escaping @Sendable (String) throws -> [String]) {
        self.pool = pool
        self.lookUp = lookUp
    }

    /// The addresses of `host` (IPv4 and IPv6, in the resolver's order, without repeats).
    public func addresses(of host: String) async throws -> [String] {
        let lookUp = self.lookUp
        return try await pool.runIfActive { try lookUp(host) }
    }

    static func lookUp(_ host: String) throws -> [String] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let first = list else { throw FetchRefusal.unresolvable(host) }
        defer { freeaddrinfo(first) }
        var found: [String] = []
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let entry = next {
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            switch entry.pointee.ai_family {
            case AF_INET:
                entry.pointee.ai_addr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                    var raw = address.pointee.sin_addr
                    _ = inet_ntop(AF_INET, &raw, &buffer, socklen_t(buffer.count))
                }
            case AF_INET6:
                entry.pointee.ai_addr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                    var raw = address.pointee.sin6_addr
                    _ = inet_ntop(AF_INET6, &raw, &buffer, socklen_t(buffer.count))
                }
            default: break
            }
            let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !text.isEmpty, !found.contains(text) { found.append(text) }
            next = entry.pointee.ai_next
        }
        guard !found.isEmpty else { throw FetchRefusal.unresolvable(host) }
        return found
    }
}
