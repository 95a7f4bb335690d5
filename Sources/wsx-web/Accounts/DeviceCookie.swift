import Foundation

/// "This browser has signed in to this account before": a cookie (`wsx_device`) set at every
/// sign-in, holding a code of the account's key that only this server can make (`ServerKey`).
/// The per-account sign-in limit does not hold such a browser back, so someone guessing an
/// account's password from elsewhere cannot lock its owner out. It proves nothing else and
/// grants nothing.
struct DeviceCookie: Sendable {
    static let name = "wsx_device"
    static let lifetime = 365 * 24 * 60 * 60

    let key: ServerKey

    /// The cookie's value for the account with this email key.
    func value(forAccount account: String) -> String {
        key.code("device", account)
    }

    /// Whether `cookie` says this browser signed in to `account` before.
    func vouches(_ cookie: String?, forAccount account: String) -> Bool {
        guard let cookie else { return false }
        return SecretToken.constantTimeEquals(cookie, value(forAccount: account))
    }
}
