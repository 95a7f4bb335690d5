import Foundation
import Views

/// Accounts for people who sign in to the apps with Kakao or Apple: the provider's id of the
/// person (`social_logins`) names the account. The first sign-in makes one (without a
/// password: it signs in with its provider only), as sign-up would, under the same policy
/// (`--signup`) and with the same coins; an address that already has an account is refused
/// (`E12`: it signs in with its password, as the apps' "already joined by email" says).
struct SocialSignIns: Sendable {
    let database: AppDatabase
    let clock: WallClock
    let policy: SignupPolicy
    /// Coins a new account starts with (`--signup-coins`).
    let signupCoins: Int

    enum Provider: String, Sendable {
        case kakao, apple

        /// The nickname of an account the provider gave none for.
        var defaultNickname: String { self == .kakao ? "카카오 사용자" : "Apple 사용자" }
    }

    /// The account `provider`'s person `subject` signs in to, made on the first sign-in.
    func account(_ provider: Provider, subject: String, email rawEmail: String?, nickname rawNickname: String?,
                 address: String) async throws -> User {
        let now = clock.now(), policy = self.policy, coins = signupCoins
        let email = rawEmail?.cleanedLine.lowercased()
        let found = try await database.queryOffLoop { tx -> (linked: User?, emailTaken: Bool, hasAccounts: Bool) in
            let linked = try tx.socialLogins.userId(provider: provider.rawValue, subject: subject).flatMap { try tx.accounts.user(id: $0) }
            let taken = try email.map { try tx.accounts.hasAccount(emailKey: User.key(forEmail: $0)) } ?? false
            return (linked, taken, try tx.accounts.count() > 0)
        }
        if let user = found.linked {
            guard user.isActive else { throw APIError.unknownAccount }
            return user
        }
        if found.emailTaken { throw APIError.duplicate }
        // A provider's address stands for a confirmed one; without one the account gets an
        // address of its own that no mail reaches.
        let mailbox = email.flatMap { AccountRules.isPlausibleEmail($0) ? $0 : nil }
            ?? "\(provider.rawValue)-\(SecretToken.hash(subject).prefix(16))@users.invalid"
        guard policy.refusal(email: mailbox, firstAccount: !found.hasAccounts, invited: false) == nil else { throw APIError.noAccess }
        var problems = FormProblems()
        let offered = rawNickname?.cleanedLine ?? ""
        AccountRules.checkNickname(offered, into: &problems)
        let nickname = problems.isEmpty ? offered : provider.defaultNickname
        var made = User(id: nil, email: mailbox, emailKey: User.key(forEmail: mailbox), nickname: nickname, phone: nil, passwordHash: "",
                        lang: nil, createdAt: now, updatedAt: now)
        made.emailConfirmedAt = email != nil ? now : nil
        let pending = made, ledger = CoinLedger(outbox: database.outbox)
        do {
            return try await database.write { tx in
                var fresh = pending
                fresh.isAdmin = try tx.accounts.count() == 0
                var user = try tx.accounts.insert(fresh)
                try tx.socialLogins.link(provider: provider.rawValue, subject: subject, userId: user.id!, at: now)
                try tx.securityLog.record(.signUp, target: user.id, address: address, email: user.email, detail: provider.rawValue, at: now)
                if coins > 0 { user.coinBalance = try ledger.change(tx, userId: user.id!, by: coins, reason: "signup", at: now) }
                return user
            }
        } catch is DuplicateKey {
            // Two first sign-ins at once: the other made the account.
            throw APIError.duplicate
        }
    }
}
