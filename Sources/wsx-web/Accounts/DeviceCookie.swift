import Crypto
import Foundation

/// "This browser has signed in to this account before": a cookie (`wsx_device`) set at every
/// sign-in, holding an HMAC of the account's key under a secret kept in the data folder. The
/// per-account sign-in limit does not hold such a browser back, so someone guessing an account's
/// password from elsewhere cannot lock its owner out. It proves nothing else and grants nothing.
struct DeviceCookie: Sendable {
    static let name = "wsx_device"
    static let lifetime = 365 * 24 * 60 * 60

    private let key: SymmetricKey

    init(key: SymmetricKey) {
        self.key = key
    }

    /// Made from (or made and kept in) `device-key` in the data folder.
    init(dataDirectory: String) throws {
        self.init(key: SymmetricKey(data: try SecretFile.load("device-key", in: dataDirectory)))
    }

    /// The cookie's value for the account with this email key.
    func value(forAccount account: String) -> String {
        Data(HMAC<SHA256>.authenticationCode(for: Data(("device\u{0}" + account).utf8), using: key)).base64URLEncoded
    }

    /// Whether `cookie` says this browser signed in to `account` before.
    func vouches(_ cookie: String?, forAccount account: String) -> Bool {
        guard let cookie else { return false }
        return SecretToken.constantTimeEquals(cookie, value(forAccount: account))
    }
}
