import Foundation
import Views

/// Confirming that a person receives mail at their account's address: a one-time link mailed
/// after sign-up (and again on request from the profile), valid for a week.
///
/// What hangs on it: invitations addressed to an account are listed on its workspaces page (and
/// arrive there live) only once its address is confirmed. Someone who signed up as
/// `newhire@corp.com` before the real person used to find Corp's invitation waiting for them;
/// now they would need the invitation's own link, which went to the real address.
struct EmailConfirmations: Sendable {
    let database: AppDatabase
    let clock: WallClock
    let mail: MailRoutes

    static let lifetime: TimeInterval = 7 * 24 * 60 * 60

    /// Queues a confirmation mail for `user` (nothing without mail, or when confirmed already).
    func send(to user: User, lang: Lang) async throws {
        guard let composer = mail.composer, user.emailConfirmedAt == nil, let userId = user.id else { return }
        let token = SecretToken.generate()
        let now = clock.now()
        let message = composer.emailConfirmation(to: user.email, token: token, lang: user.lang.flatMap(Lang.init(rawValue:)) ?? lang)
        try await database.write { tx in
            try tx.emailConfirmations.replace(userId: userId, tokenHash: SecretToken.hash(token), emailKey: user.emailKey,
                                              at: now, expiresAt: now.addingTimeInterval(Self.lifetime))
            try tx.emailConfirmations.queueMail(to: user.email, message: message, at: now)
        }
        mail.sender?.wake()
    }

    /// The account a live link confirms, when the account still has that address.
    func account(token: String) throws -> User? {
        let now = clock.now()
        return try database.query { tx -> User? in
            guard let link = try tx.emailConfirmations.live(tokenHash: SecretToken.hash(token), at: now),
                  let user = try tx.accounts.user(id: link.userId), user.emailKey == link.emailKey, user.isActive
            else { return nil }
            return user
        }
    }

    /// Confirms the address behind a live link; nil when the link is used, expired or unknown.
    func confirm(token: String, address: String) async throws -> User? {
        let now = clock.now()
        return try await database.write { tx -> User? in
            guard let link = try tx.emailConfirmations.live(tokenHash: SecretToken.hash(token), at: now),
                  var user = try tx.accounts.user(id: link.userId), user.emailKey == link.emailKey, user.isActive
            else { return nil }
            try tx.emailConfirmations.markUsed(id: link.id, at: now)
            if user.emailConfirmedAt == nil {
                try tx.accounts.confirmEmail(userId: link.userId, at: now)
                try tx.securityLog.record(.emailConfirmed, actor: user.id, target: user.id, address: address, email: user.email, at: now)
                user.emailConfirmedAt = now
            }
            return user
        }
    }
}
