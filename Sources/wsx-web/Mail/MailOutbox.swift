import Foundation
import Mail

/// The queue of mail to send (`mail_outbox`): what is due, what was sent, what keeps failing.
/// Its storage is the transaction's `MailQueueStore` (`tx.mail`), so another storage backend
/// replaces that store, not this file.
struct MailOutbox: Sendable {
    enum Kind: String, Sendable {
        case invitation
        case passwordReset = "password_reset"
        case digest
        case emailConfirmation = "email_confirmation"
    }

    /// A mail waiting for its turn.
    struct Due: Sendable {
        let id: Int64
        let recipient: String
        let message: String
        let attempts: Int
    }

    /// A mail that will not be tried again, for the owner of its workspace or an administrator.
    struct Failure: Sendable {
        let kind: Kind
        let recipient: String
        let reason: SMTPFailureReason
        let failedAt: Date
    }

    let database: AppDatabase
    let clock: WallClock

    /// Queues one mail in a transaction of its own. (In the caller's transaction:
    /// `tx.mail.enqueue`.)
    func enqueue(kind: Kind, recipient: String, workspaceId: Int64?, message: String) async throws {
        let now = clock.now()
        try await database.write { tx in
            try tx.mail.enqueue(kind: kind, recipient: recipient, workspaceId: workspaceId, message: message, at: now)
        }
    }

    /// Mail due now, oldest first, taken for sending by this sender alone (another node's sender
    /// passes it over) until `lease` from now: sent or failed before then, it is done; if this
    /// server stops before, it is due again then.
    func claimDue(limit: Int = 20, lease: TimeInterval = MailOutbox.claimLease) async throws -> [Due] {
        let now = clock.now()
        return try await database.write { tx in try tx.mail.claim(at: now, limit: limit, until: now.addingTimeInterval(lease)) }
    }

    /// How long a sender keeps the mail it took: longer than a round of twenty takes to time out.
    static let claimLease: TimeInterval = 30 * 60

    /// When the next waiting mail is due, if any waits.
    func nextDue() throws -> Date? {
        try database.query { tx in try tx.mail.nextDue() }
    }

    /// The language an account with this address chose, if there is one (mail is written in it).
    func savedLanguage(email: String) throws -> String? {
        let key = User.key(forEmail: email)
        return try database.query { tx in try tx.mail.language(emailKey: key) }
    }

    /// Mail waiting to be sent (for `/metrics`).
    func queueLength() throws -> Int {
        try database.query { tx in try tx.mail.queueLength() }
    }

    /// Mail given up on and not since sent again (for `/metrics`).
    func failedCount() throws -> Int {
        try database.query { tx in try tx.mail.failedCount() }
    }

    /// Sent: its text goes (a reset link is a secret), the row stays as a record. Earlier mail
    /// of the same kind to the same address (and workspace) that was given up on is cleared: the
    /// resend reached them, and the failure no longer asks anyone to act.
    func markSent(_ id: Int64) async throws {
        let now = clock.now()
        try await database.write { tx in try tx.mail.markSent(id: id, at: now) }
    }

    /// Not sent this time: tried again at `next`, or given up on (`next` nil). The error's text
    /// (host, port, the server's reply) is kept for operators; people see only `reason`.
    func markFailed(_ id: Int64, error: String, reason: SMTPFailureReason, next: Date?) async throws {
        let now = clock.now()
        try await database.write { tx in try tx.mail.markFailed(id: id, error: error, reason: reason, next: next, at: now) }
    }

    /// Mail that was due waits until `time` without a try counted (its server is out of reach).
    func postpone(_ ids: [Int64], until time: Date) async throws {
        try await database.write { tx in try tx.mail.postpone(ids: ids, until: time) }
    }

    /// Invitation mail of this workspace that could not be delivered and was not delivered
    /// since, newest first.
    func failures(workspaceId: Int64) throws -> [Failure] {
        try database.query { tx in try tx.mail.failures(workspaceId: workspaceId) }
    }

    /// Every kind of mail given up on and not delivered since, newest first (server administrators).
    func failures(limit: Int = 50) throws -> [Failure] {
        try database.query { tx in try tx.mail.failures(limit: limit) }
    }
}
