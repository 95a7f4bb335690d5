import Crypto
import Foundation

/// The server's own secret (`server-key` in the data folder, 0600), for values only this server
/// can make: device cookies, invitation tokens. Each use names its purpose, so a value made for
/// one is never valid as another.
struct ServerKey: Sendable {
    private let key: SymmetricKey

    init(_ key: SymmetricKey) {
        self.key = key
    }

    /// Made from (or made and kept in) `server-key` under `dataDirectory`.
    init(dataDirectory: String) throws {
        try self.init(keeper: .folder(dataDirectory))
    }

    /// Made from (or made and kept as) `server-key` where `keeper` keeps secrets.
    init(keeper: SecretKeeper) throws {
        self.init(SymmetricKey(data: try keeper.load("server-key")))
    }

    /// HMAC-SHA256 of `message` for `purpose`, base64url (43 characters).
    func code(_ purpose: String, _ message: String) -> String {
        Data(HMAC<SHA256>.authenticationCode(for: Data((purpose + "\u{0}" + message).utf8), using: key)).base64URLEncoded
    }
}
