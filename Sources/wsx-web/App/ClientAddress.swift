import Foundation
import HTTPTypes
import Hummingbird

/// The address a request came from: the connection's peer, or behind a trusted proxy
/// (`--trust-proxy`) the last address that proxy appended to `X-Forwarded-For`. Never a
/// forwarded address without the flag: any client can send the header.
enum ClientAddress {
    static func of(_ request: Request, peer: String?, trustProxy: Bool) -> String {
        if trustProxy, let forwarded = request.headers[forwardedFor],
           let last = forwarded.split(separator: ",").last?.trimmingCharacters(in: .whitespaces), !last.isEmpty {
            return last
        }
        return peer ?? "unknown"
    }

    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    /// Headers by which a proxy says whom it forwards for: a request carrying any of them came
    /// through one, whatever its peer address.
    static let forwardingHeaders: [HTTPField.Name] = [
        "X-Forwarded-For", "X-Real-IP", "Forwarded", "CF-Connecting-IP", "True-Client-IP", "X-Client-IP",
        "X-Cluster-Client-IP", "Fastly-Client-IP", "X-Forwarded-Host", "X-Forwarded-Proto", "Via",
    ].compactMap { HTTPField.Name($0) }

    /// Whether a proxy (any proxy, trusted or not) handed the request on.
    static func cameThroughProxy(_ request: Request) -> Bool {
        forwardingHeaders.contains { request.headers[$0] != nil }
    }
}
