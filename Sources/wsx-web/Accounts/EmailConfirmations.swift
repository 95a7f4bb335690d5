import Foundation
import GRDB
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
        try await database.writer.write { db in
            try db.execute(sql: "DELETE FROM email_confirmations WHERE user_id = ?", arguments: [userId])
            try db.execute(sql: """
                INSERT INTO email_confirmations (token_hash, user_id, email_key, created_at, expires_at) VALUES (?, ?, ?, ?, ?)
                """, arguments: [SecretToken.hash(token), userId, user.emailKey, now, now.addingTimeInterval(Self.lifetime)])
            try MailOutbox.enqueue(db, kind: .emailConfirmation, recipient: user.email, workspaceId: nil, message: message, at: now)
        }
        mail.sender?.wake()
    }

    /// The account a live link confirms, when the account still has that address.
    func account(token: String) throws -> User? {
        let now = clock.now()
        return try database.read { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT user_id, email_key FROM email_confirmations WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?
                """, arguments: [SecretToken.hash(token), now]),
                let user = try User.fetchOne(db, key: row["user_id"] as Int64), user.emailKey == row["email_key"], user.isActive
            else { return nil }
            return user
        }
    }

    /// Confirms the address behind a live link; nil when the link is used, expired or unknown.
    func confirm(token: String, address: String) async throws -> User? {
        let now = clock.now()
        return try await database.writer.write { db -> User? in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT id, user_id, email_key FROM email_confirmations WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?
                """, arguments: [SecretToken.hash(token), now]),
                var user = try User.fetchOne(db, key: row["user_id"] as Int64), user.emailKey == row["email_key"], user.isActive
            else { return nil }
            try db.execute(sql: "UPDATE email_confirmations SET used_at = ? WHERE id = ?", arguments: [now, row["id"] as Int64])
            if user.emailConfirmedAt == nil {
                try db.execute(sql: "UPDATE users SET email_confirmed_at = ? WHERE id = ?", arguments: [now, user.id])
                try SecurityLog.record(db, .emailConfirmed, actor: user.id, target: user.id, address: address, email: user.email, at: now)
                user.emailConfirmedAt = now
            }
            return user
        }
    }
}
