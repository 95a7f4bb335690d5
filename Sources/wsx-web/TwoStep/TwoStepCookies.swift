import Foundation

/// The two cookies of two-step sign-in, each a value only this server can make (`ServerKey`):
///
/// - `wsx_2fa_pending`: the password was right, the code is next; names the account, where to go
///   after, and an expiry five minutes on.
/// - `wsx_2fa`: "remember this browser" for 30 days, for one account; it stops counting when
///   two-step sign-in is turned off and on again (it names when it was turned on).
struct TwoStepCookies: Sendable {
    static let pendingName = "wsx_2fa_pending"
    static let trustedName = "wsx_2fa"
    static let pendingLifetime = 5 * 60
    static let trustLifetime = 30 * 24 * 60 * 60

    let key: ServerKey
    let clock: WallClock

    /// The pending step for `userId`, going to `next` afterwards.
    func pending(userId: Int64, next: String, remember: Bool) -> String {
        let expiry = Int(clock.now().timeIntervalSince1970) + Self.pendingLifetime
        let body = "\(userId).\(expiry).\(remember ? 1 : 0).\(Data(next.utf8).base64URLEncoded)"
        return body + "." + key.code("two-step-pending", body)
    }

    /// The account a pending cookie names and where it goes, while it has not expired.
    func pending(_ cookie: String?) -> (userId: Int64, next: String)? {
        guard let cookie, let parts = signed(cookie, purpose: "two-step-pending"), parts.count == 4,
              let userId = Int64(parts[0]), let expiry = Int(parts[1]), expiry > Int(clock.now().timeIntervalSince1970),
              let next = Data(base64URLEncoded: String(parts[3])).map({ String(decoding: $0, as: UTF8.self) })
        else { return nil }
        return (userId, next)
    }

    /// "Remember this browser" for `user` (whose two-step sign-in is on).
    func trusted(_ user: User) -> String {
        let expiry = Int(clock.now().timeIntervalSince1970) + Self.trustLifetime
        let body = "\(user.id!).\(expiry).\(Int(user.twoStepEnabledAt?.timeIntervalSince1970 ?? 0))"
        return body + "." + key.code("two-step-trusted", body)
    }

    /// Whether `cookie` remembers this browser for `user`, as two-step sign-in is set now.
    func trusts(_ cookie: String?, user: User) -> Bool {
        guard let cookie, let enabled = user.twoStepEnabledAt, let parts = signed(cookie, purpose: "two-step-trusted"),
              parts.count == 3, Int64(parts[0]) == user.id, let expiry = Int(parts[1]),
              expiry > Int(clock.now().timeIntervalSince1970), Int(parts[2]) == Int(enabled.timeIntervalSince1970)
        else { return false }
        return true
    }

    /// The parts of a value before its code, when the code is this server's for `purpose`.
    private func signed(_ cookie: String, purpose: String) -> [Substring]? {
        guard let dot = cookie.lastIndex(of: ".") else { return nil }
        let body = String(cookie[..<dot])
        guard SecretToken.constantTimeEquals(String(cookie[cookie.index(after: dot)...]), key.code(purpose, body)) else { return nil }
        return body.split(separator: ".", omittingEmptySubsequences: false)
    }
}

extension Data {
    /// Reads base64url without padding (what `base64URLEncoded` writes).
    init?(base64URLEncoded text: String) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        self.init(base64Encoded: base64)
    }
}
