import Foundation
import GRDB
import Mail

/// The queue of mail to send (`mail_outbox`): what is due, what was sent, what keeps failing.
/// SQL about mail lives here, so another storage backend replaces this one file.
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

    /// Queues one mail in the caller's transaction.
    static func enqueue(_ db: Database, kind: Kind, recipient: String, workspaceId: Int64?, message: String, at now: Date) throws {
        try db.execute(sql: """
            INSERT INTO mail_outbox (kind, recipient, workspace_id, message, next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?, ?)
            """, arguments: [kind.rawValue, recipient, workspaceId, message, Timestamps.database(now), Timestamps.database(now)])
    }

    /// Queues one mail in a transaction of its own.
    func enqueue(kind: Kind, recipient: String, workspaceId: Int64?, message: String) async throws {
        let now = clock.now()
        try await database.writer.write { db in
            try Self.enqueue(db, kind: kind, recipient: recipient, workspaceId: workspaceId, message: message, at: now)
        }
    }

    /// Mail due now, oldest first.
    func due(limit: Int = 20) throws -> [Due] {
        let now = Timestamps.database(clock.now())
        return try database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT id, recipient, message, attempts FROM mail_outbox
                WHERE sent_at IS NULL AND failed_at IS NULL AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?
                """, arguments: [now, limit]).map { Due(id: $0["id"], recipient: $0["recipient"], message: $0["message"], attempts: $0["attempts"]) }
        }
    }

    /// When the next waiting mail is due, if any waits.
    func nextDue() throws -> Date? {
        try database.read { db in
            try Date.fetchOne(db, sql: """
                SELECT MIN(next_attempt_at) FROM mail_outbox WHERE sent_at IS NULL AND failed_at IS NULL
                """)
        }
    }

    /// The language an account with this address chose, if there is one (mail is written in it).
    func savedLanguage(email: String) throws -> String? {
        let key = User.key(forEmail: email)
        return try database.read { db in
            try String.fetchOne(db, sql: "SELECT lang FROM users WHERE email_key = ?", arguments: [key])
        }
    }

    /// Mail waiting to be sent (for `/metrics`).
    func queueLength() throws -> Int {
        try database.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM mail_outbox WHERE sent_at IS NULL AND failed_at IS NULL") ?? 0
        }
    }

    /// Mail given up on and not since sent again (for `/metrics`).
    func failedCount() throws -> Int {
        try database.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM mail_outbox WHERE failed_at IS NOT NULL AND cleared_at IS NULL") ?? 0
        }
    }

    /// Sent: its text goes (a reset link is a secret), the row stays as a record. Earlier mail
    /// of the same kind to the same address (and workspace) that was given up on is cleared: the
    /// resend reached them, and the failure no longer asks anyone to act.
    func markSent(_ id: Int64) async throws {
        let now = Timestamps.database(clock.now())
        try await database.writer.write { db in
            try db.execute(sql: "UPDATE mail_outbox SET sent_at = ?, message = '', attempts = attempts + 1 WHERE id = ?",
                           arguments: [now, id])
            try db.execute(sql: """
                UPDATE mail_outbox SET cleared_at = ?
                WHERE failed_at IS NOT NULL AND cleared_at IS NULL AND id < ?
                  AND (kind, recipient, IFNULL(workspace_id, 0)) = (SELECT kind, recipient, IFNULL(workspace_id, 0) FROM mail_outbox WHERE id = ?)
                """, arguments: [now, id, id])
        }
    }

    /// Not sent this time: tried again at `next`, or given up on (`next` nil). The error's text
    /// (host, port, the server's reply) is kept for operators; people see only `reason`.
    func markFailed(_ id: Int64, error: String, reason: SMTPFailureReason, next: Date?) async throws {
        let now = clock.now()
        try await database.writer.write { db in
            if let next {
                try db.execute(sql: """
                    UPDATE mail_outbox SET attempts = attempts + 1, last_error = ?, failure = ?, next_attempt_at = ? WHERE id = ?
                    """, arguments: [error, reason.rawValue, Timestamps.database(next), id])
            } else {
                try db.execute(sql: """
                    UPDATE mail_outbox SET attempts = attempts + 1, last_error = ?, failure = ?, failed_at = ?, message = ''
                    WHERE id = ?
                    """, arguments: [error, reason.rawValue, Timestamps.database(now), id])
            }
        }
    }

    /// Mail that was due waits until `time` without a try counted (its server is out of reach).
    func postpone(_ ids: [Int64], until time: Date) async throws {
        try await database.writer.write { db in
            try db.execute(sql: """
                UPDATE mail_outbox SET next_attempt_at = ? WHERE id IN (\(databaseQuestionMarks(count: ids.count)))
                  AND sent_at IS NULL AND failed_at IS NULL
                """, arguments: StatementArguments([Timestamps.database(time)] + ids.map { $0 as (any DatabaseValueConvertible) }))
        }
    }

    /// Invitation mail of this workspace that could not be delivered and was not delivered
    /// since, newest first.
    func failures(workspaceId: Int64) throws -> [Failure] {
        try database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT kind, recipient, failure, failed_at FROM mail_outbox
                WHERE workspace_id = ? AND failed_at IS NOT NULL AND cleared_at IS NULL ORDER BY failed_at DESC, id DESC LIMIT 20
                """, arguments: [workspaceId]).map(Self.failure)
        }
    }

    /// Every kind of mail given up on and not delivered since, newest first (server administrators).
    func failures(limit: Int = 50) throws -> [Failure] {
        try database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT kind, recipient, failure, failed_at FROM mail_outbox
                WHERE failed_at IS NOT NULL AND cleared_at IS NULL ORDER BY failed_at DESC, id DESC LIMIT ?
                """, arguments: [limit]).map(Self.failure)
        }
    }

    private static func failure(_ row: Row) -> Failure {
        Failure(kind: Kind(rawValue: row["kind"]) ?? .invitation, recipient: row["recipient"],
                reason: (row["failure"] as String?).flatMap(SMTPFailureReason.init(rawValue:)) ?? .refused,
                failedAt: row["failed_at"] ?? .distantPast)
    }
}
