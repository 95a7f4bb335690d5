import Crypto
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import _CryptoExtras
import Synchronization

/// Sign in with Apple for the apps: an `idToken` is believed when it is a JWT signed (RS256) by
/// one of Apple's keys (their JWKS, from a file or URL), issued by `https://appleid.apple.com`
/// for one of the apps' bundle ids, and not expired. Its `sub` is the Apple account; `email`
/// comes along when Apple shares it.
final class AppleIdentity: Sendable {
    /// The apps' bundle ids: the audiences a token may be for. None: Apple sign-in is off.
    let clientIds: [String]
    /// A JWKS file path, or an http(s) URL.
    let keysLocation: String
    let clock: WallClock
    private let cache = Mutex<(keys: [String: _RSA.Signing.PublicKey], readAt: Date)?>(nil)

    init(clientIds: [String], keysLocation: String, clock: WallClock) {
        (self.clientIds, self.keysLocation, self.clock) = (clientIds, keysLocation, clock)
    }

    static let issuer = "https://appleid.apple.com"

    /// Who the token says signed in.
    struct Person: Sendable, Equatable {
        let subject: String
        let email: String?
    }

    /// The person `idToken` names; nil when it is not a valid token for these apps (or Apple
    /// sign-in is off).
    func person(idToken: String) async -> Person? {
        guard !clientIds.isEmpty else { return nil }
        let parts = idToken.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Self.base64URL(parts[0]), let claimsData = Self.base64URL(parts[1]),
              let signatureData = Self.base64URL(parts[2]),
              let header = try? JSONSerialization.jsonObject(with: headerData) as? [String: Any],
              header["alg"] as? String == "RS256", let kid = header["kid"] as? String,
              let claims = try? JSONSerialization.jsonObject(with: claimsData) as? [String: Any] else { return nil }
        guard let key = await key(kid) else { return nil }
        let signed = Data((parts[0] + "." + parts[1]).utf8)
        guard key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signatureData), for: SHA256.hash(data: signed),
                                   padding: .insecurePKCS1v1_5) else { return nil }
        let audiences = (claims["aud"] as? String).map { [$0] } ?? (claims["aud"] as? [String] ?? [])
        guard claims["iss"] as? String == Self.issuer, audiences.contains(where: clientIds.contains),
              let expires = (claims["exp"] as? NSNumber)?.doubleValue, expires > clock.now().timeIntervalSince1970,
              let subject = claims["sub"] as? String, !subject.isEmpty else { return nil }
        return Person(subject: subject, email: (claims["email"] as? String).flatMap { $0.isEmpty ? nil : $0 })
    }

    /// The key `kid`, from the keys read within the hour, else read again (Apple rotates them).
    private func key(_ kid: String) async -> _RSA.Signing.PublicKey? {
        let now = clock.now()
        if let cached = cache.withLock({ $0 }), now.timeIntervalSince(cached.readAt) < 3600, let key = cached.keys[kid] { return key }
        guard let keys = await readKeys() else { return nil }
        cache.withLock { $0 = (keys, now) }
        return keys[kid]
    }

    private func readKeys() async -> [String: _RSA.Signing.PublicKey]? {
        let data: Data?
        if keysLocation.hasPrefix("https://") || keysLocation.hasPrefix("http://"), let url = URL(string: keysLocation) {
            var request = URLRequest(url: url, timeoutInterval: 10)
            request.httpMethod = "GET"
            data = try? await URLSession.shared.data(for: request).0
        } else {
            data = FileManager.default.contents(atPath: keysLocation)
        }
        guard let data, let set = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let keys = set["keys"] as? [[String: Any]] else { return nil }
        var found: [String: _RSA.Signing.PublicKey] = [:]
        for key in keys where key["kty"] as? String == "RSA" {
            guard let kid = key["kid"] as? String, let n = (key["n"] as? String).flatMap(Self.base64URL),
                  let e = (key["e"] as? String).flatMap(Self.base64URL),
                  let publicKey = try? _RSA.Signing.PublicKey(n: n, e: e) else { continue }
            found[kid] = publicKey
        }
        return found
    }

    static func base64URL(_ text: some StringProtocol) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
