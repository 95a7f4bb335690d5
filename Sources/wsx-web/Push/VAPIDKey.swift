import Crypto
import Foundation

/// The server's identity toward push services (RFC 8292): one P-256 key pair, made once and
/// kept with the server's other secrets. Browsers subscribe with its public key; every push
/// carries a short-lived JWT signed with its private key.
struct VAPIDKey: Sendable {
    let privateKey: P256.Signing.PrivateKey
    /// Who runs this server, for a push service that must reach them (`mailto:`).
    let subject: String

    /// The key pair in `vapid-key` under `dataDirectory`, made when missing.
    init(dataDirectory: String, subject: String) throws {
        try self.init(keeper: .folder(dataDirectory), subject: subject)
    }

    /// The key pair kept as `vapid-key` where `keeper` keeps secrets, made when missing.
    init(keeper: SecretKeeper, subject: String) throws {
        let stored = try keeper.load("vapid-key") {
            Data(P256.Signing.PrivateKey().rawRepresentation.base64URLEncoded.utf8)
        }
        guard let raw = Data(base64URLEncoded: String(decoding: stored, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)),
              let key = try? P256.Signing.PrivateKey(rawRepresentation: raw) else { throw VAPIDKeyError.unreadable }
        self.init(privateKey: key, subject: subject)
    }

    init(privateKey: P256.Signing.PrivateKey, subject: String) {
        (self.privateKey, self.subject) = (privateKey, subject)
    }

    /// The public key as browsers take it (`applicationServerKey`): the uncompressed point,
    /// base64url without padding.
    var publicKeyText: String { privateKey.publicKey.x963Representation.base64URLEncoded }

    /// The `Authorization` header for a push to `endpoint`: `vapid t=<JWT>, k=<public key>`, the
    /// JWT naming the push service's origin (`aud`), an expiry 12 hours on (`exp`), and `sub`.
    func authorization(for endpoint: URL, now: Date) throws -> String {
        guard let scheme = endpoint.scheme?.lowercased(), let host = endpoint.host(percentEncoded: false) else {
            throw VAPIDKeyError.badEndpoint
        }
        let port = endpoint.port.map { ":\($0)" } ?? ""
        let header = #"{"typ":"JWT","alg":"ES256"}"#
        let claims = CompactJSON.object([
            "aud": .string("\(scheme)://\(host.lowercased())\(port)"),
            "exp": .int(Int64(now.timeIntervalSince1970) + 12 * 3600),
            "sub": .string(subject),
        ])
        let signingInput = Data(header.utf8).base64URLEncoded + "." + Data(claims.utf8).base64URLEncoded
        // JOSE's ES256 signature is r and s, 32 bytes each, not DER.
        let signature = try privateKey.signature(for: Data(signingInput.utf8)).rawRepresentation
        return "vapid t=\(signingInput).\(signature.base64URLEncoded), k=\(publicKeyText)"
    }
}

enum VAPIDKeyError: Error {
    /// `vapid-key` is not a P-256 private key.
    case unreadable
    case badEndpoint
}
