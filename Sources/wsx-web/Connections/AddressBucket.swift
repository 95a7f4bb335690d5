#if canImport(Glibc)
import Glibc
#endif

/// The unit one client is counted in by every per-address limit (connections, sign-ins,
/// sign-ups, reset requests): an IPv4 address, or an IPv6 address's /64. One IPv6 host is
/// handed a whole /64 (SLAAC, privacy addresses), so counting each address let one client be
/// 2^64 clients.
enum AddressBucket {
    /// `2001:db8:1:2::/64` for any address in it; IPv4 (and IPv4-mapped IPv6) addresses as they are.
    static func key(_ address: String) -> String {
        guard address.contains(":") else { return address }
        var bytes = in6_addr()
        guard inet_pton(AF_INET6, address, &bytes) == 1 else { return address }
        let raw = withUnsafeBytes(of: &bytes) { Array($0) }
        if raw[0..<10].allSatisfy({ $0 == 0 }) && raw[10] == 0xff && raw[11] == 0xff {
            return "\(raw[12]).\(raw[13]).\(raw[14]).\(raw[15])"
        }
        let groups = stride(from: 0, to: 8, by: 2).map { String(UInt16(raw[$0]) << 8 | UInt16(raw[$0 + 1]), radix: 16) }
        return groups.joined(separator: ":") + "::/64"
    }
}
