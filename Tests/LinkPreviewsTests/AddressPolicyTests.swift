import Testing
@testable import LinkPreviews

/// Only public unicast addresses may be fetched: every block a message could use to reach the
/// server's own network is refused, however it is written.
@Suite("Address policy")
struct AddressPolicyTests {
    @Test("public IPv4 and IPv6 addresses pass", arguments: [
        "8.8.8.8", "1.1.1.1", "93.184.216.34", "211.249.220.24", "100.63.255.255", "100.128.0.0", "172.32.0.1",
        "2606:4700:4700::1111", "2404:6800:4004:80f::200e", "2002:808:808::1",
    ])
    func publicAddresses(address: String) {
        #expect(AddressPolicy.isPublic(address))
    }

    @Test("loopback, private, shared, link-local, multicast, reserved and documentation addresses are refused", arguments: [
        "127.0.0.1", "127.1.2.3", "0.0.0.0", "10.0.0.1", "172.16.0.1", "172.31.255.255", "192.168.1.1",
        "100.64.0.1", "169.254.169.254", "224.0.0.1", "239.255.255.250", "240.0.0.1", "255.255.255.255",
        "192.0.2.1", "198.51.100.7", "203.0.113.9", "198.18.0.1", "192.0.0.8",
        "::", "::1", "fe80::1", "fc00::1", "fd12:3456::1", "ff02::1", "fec0::1", "2001:db8::1", "2001::1", "100::1",
        // IPv4 inside IPv6: mapped, compatible, NAT64, 6to4.
        "::ffff:127.0.0.1", "::ffff:10.0.0.1", "::127.0.0.1", "64:ff9b::a9fe:a9fe", "2002:7f00:1::1", "2002:c0a8:101::1",
        // Not addresses at all, and zones.
        "localhost", "example.com", "", "fe80::1%eth0", "1.2.3", "01.02.03.04x",
    ])
    func refusedAddresses(address: String) {
        #expect(!AddressPolicy.isPublic(address))
    }
}
