import Crypto
import Foundation

/// Random tokens for cookies, CSRF and one-time links, and the hashes stored in their place.
enum SecretToken {
    /// 32 random bytes from the system's CSPRNG, base64url without padding (43 characters).
    static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64URLEncoded
    }

    /// The SHA-256 of `token` in hex: what the database keeps, so a leaked database cannot be
    /// replayed as cookies or links.
    static func hash(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).hexString
    }

    /// Compares two secrets in time independent of where they differ.
    static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }
}

extension Data {
    /// Base64url (RFC 4648 §5) without padding: safe in URLs and cookies.
    var base64URLEncoded: String {
        base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

extension Sequence<UInt8> {
    /// Lowercase hex, by table: every request hashes its session cookie, and `String(format:)`
    /// per byte was a third of the session lookup in profiles.
    var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(underestimatedCount * 2)
        for byte in self {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: hex, as: UTF8.self)
    }
}
