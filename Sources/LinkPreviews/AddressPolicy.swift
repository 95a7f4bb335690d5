#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which IP addresses a link preview may connect to: public unicast only. Loopback, private,
/// shared (carrier-grade NAT), link-local, multicast, unspecified, reserved and documentation
/// ranges are refused, in IPv4 and IPv6, and so is an IPv4 address dressed as IPv6 (mapped,
/// compatible, NAT64, 6to4) when the address inside is one of those.
public enum AddressPolicy {
    /// Whether `address` (an IPv4 or IPv6 literal) is a public unicast address. Anything that is
    /// not a literal is not.
    public static func isPublic(_ address: String) -> Bool {
        if let v4 = ipv4(address) { return isPublic(v4: v4) }
        if let v6 = ipv6(address) { return isPublic(v6: v6) }
        return false
    }

    /// The address's four bytes, if it is an IPv4 literal.
    static func ipv4(_ text: String) -> [UInt8]? {
        var address = in_addr()
        guard inet_pton(AF_INET, text, &address) == 1 else { return nil }
        return withUnsafeBytes(of: &address) { Array($0) }
    }

    /// The address's sixteen bytes, if it is an IPv6 literal (a zone `%eth0` is refused).
    static func ipv6(_ text: String) -> [UInt8]? {
        var address = in6_addr()
        guard !text.contains("%"), inet_pton(AF_INET6, text, &address) == 1 else { return nil }
        return withUnsafeBytes(of: &address) { Array($0) }
    }

    /// IPv4 blocks that are not public unicast (RFC 6890 and the multicast and reserved space).
    private static let refusedV4: [(prefix: UInt32, bits: UInt32)] = [
        (0x0000_0000, 8),   // "this network"
        (0x0A00_0000, 8),   // private
        (0x6440_0000, 10),  // shared address space (carrier-grade NAT)
        (0x7F00_0000, 8),   // loopback
        (0xA9FE_0000, 16),  // link-local (cloud metadata lives here)
        (0xAC10_0000, 12),  // private
        (0xC000_0000, 24),  // IETF protocol assignments
        (0xC000_0200, 24),  // documentation
        (0xC058_6300, 24),  // 6to4 relay anycast
        (0xC0A8_0000, 16),  // private
        (0xC612_0000, 15),  // benchmarking
        (0xC633_6400, 24),  // documentation
        (0xCB00_7100, 24),  // documentation
        (0xE000_0000, 4),   // multicast
        (0xF000_0000, 4),   // reserved, and the broadcast address
    ]

    static func isPublic(v4 bytes: [UInt8]) -> Bool {
        let value = bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return !refusedV4.contains { block in
            let mask: UInt32 = block.bits == 0 ? 0 : ~UInt32(0) << (32 - block.bits)
            return value & mask == block.prefix
        }
    }

    static func isPublic(v6 bytes: [UInt8]) -> Bool {
        let zeros = { (range: Range<Int>) in bytes[range].allSatisfy { $0 == 0 } }
        // ::/96 holds :: (unspecified), ::1 (loopback) and the deprecated IPv4-compatible form.
        if zeros(0..<12) { return false }
        // ::ffff:a.b.c.d (IPv4-mapped) and 64:ff9b::a.b.c.d (NAT64) carry an IPv4 address.
        if zeros(0..<10), bytes[10] == 0xFF, bytes[11] == 0xFF { return isPublic(v4: Array(bytes[12..<16])) }
        if bytes[0..<4] == [0x00, 0x64, 0xFF, 0x9B], zeros(4..<12) { return isPublic(v4: Array(bytes[12..<16])) }
        // 2002:a.b.c.d::/48 (6to4) carries one too.
        if bytes[0] == 0x20, bytes[1] == 0x02 { return isPublic(v4: Array(bytes[2..<6])) }
        switch bytes[0] {
        case 0xFF: return false                                  // multicast
        case 0xFC, 0xFD: return false                            // unique local
        case 0xFE where bytes[1] & 0xC0 == 0x80: return false    // link-local
        case 0xFE where bytes[1] & 0xC0 == 0xC0: return false    // site-local (deprecated)
        default: break
        }
        if bytes[0..<4] == [0x20, 0x01, 0x0D, 0xB8] { return false }  // documentation
        if bytes[0] == 0x20, bytes[1] == 0x01, bytes[2] & 0xFE == 0 { return false }  // IETF protocols, Teredo
        if bytes[0..<2] == [0x01, 0x00], zeros(2..<8) { return false }  // discard-only
        // Only global unicast (2000::/3) is in use on the internet.
        return bytes[0] & 0xE0 == 0x20
    }
}
