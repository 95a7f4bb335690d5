import Crypto
import Foundation

/// Time-based one-time passwords (RFC 6238) as authenticator apps make them: HMAC-SHA-1 of the
/// count of 30-second steps since 1970, dynamically truncated (RFC 4226) to 6 digits.
enum TOTP {
    static let digits = 6
    static let period: TimeInterval = 30
    /// Steps either side of now that are accepted: a phone's clock a little off, a code typed
    /// as it turned over.
    static let drift: Int64 = 1

    /// The step `date` falls in.
    static func step(at date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 / period).rounded(.down))
    }

    /// The code for `step`, with as many digits as asked (RFC 6238's test vectors use 8).
    static func code(secret: [UInt8], step: Int64, digits: Int = TOTP.digits) -> String {
        var counter = UInt64(bitPattern: step).bigEndian
        let message = withUnsafeBytes(of: &counter) { Data($0) }
        let mac = Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: SymmetricKey(data: secret)))
        let offset = Int(mac[mac.count - 1] & 0x0f)
        let value = (UInt32(mac[offset] & 0x7f) << 24) | (UInt32(mac[offset + 1]) << 16) | (UInt32(mac[offset + 2]) << 8)
            | UInt32(mac[offset + 3])
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        let text = String(value % modulus)
        return String(repeating: "0", count: digits - text.count) + text
    }

    /// The step whose code `typed` is (within `drift` of `date`'s), when it is later than
    /// `lastStep` (each code works once); nil otherwise. Spaces in what was typed are ignored.
    static func matchingStep(_ typed: String, secret: [UInt8], at date: Date, after lastStep: Int64) -> Int64? {
        let code = typed.filter { !$0.isWhitespace }
        guard code.count == digits, code.allSatisfy(\.isASCII), code.allSatisfy(\.isNumber) else { return nil }
        let now = step(at: date)
        for candidate in (now - drift)...(now + drift) where candidate > lastStep {
            if SecretToken.constantTimeEquals(Self.code(secret: secret, step: candidate), code) { return candidate }
        }
        return nil
    }

    /// A new secret: 20 random bytes (160 bits, RFC 4226's recommendation).
    static func newSecret() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<20).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// The `otpauth://` address authenticator apps read from the QR code.
    static func uri(secret: [UInt8], account: String, issuer: String) -> String {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        let label = (issuer + ":" + account).addingPercentEncoding(withAllowedCharacters: allowed) ?? account
        let issuerValue = issuer.addingPercentEncoding(withAllowedCharacters: allowed) ?? issuer
        return "otpauth://totp/\(label)?secret=\(Base32.encode(secret))&issuer=\(issuerValue)&algorithm=SHA1&digits=\(digits)&period=\(Int(period))"
    }
}

/// RFC 4648 base32 (A–Z, 2–7) without padding: how authenticator apps take a secret typed in.
enum Base32 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        var buffer = 0, bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | Int(byte)
            bits += 8
            while bits >= 5 {
                output.append(alphabet[(buffer >> (bits - 5)) & 31])
                bits -= 5
            }
        }
        if bits > 0 { output.append(alphabet[(buffer << (5 - bits)) & 31]) }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes of `text` (any case, spaces and padding ignored); nil for other characters.
    static func decode(_ text: String) -> [UInt8]? {
        var output: [UInt8] = []
        var buffer = 0, bits = 0
        for character in text.uppercased().utf8 where character != UInt8(ascii: " ") && character != UInt8(ascii: "=") {
            guard let value = alphabet.firstIndex(of: character) else { return nil }
            buffer = (buffer << 5) | value
            bits += 5
            if bits >= 8 {
                output.append(UInt8((buffer >> (bits - 8)) & 0xff))
                bits -= 8
            }
            buffer &= (1 << bits) - 1
        }
        return output
    }
}
