import Foundation
import GRDB

/// The queue of mail to send (`mail_outbox`): what is due, what was sent, what keeps failing.
/// SQL about mail lives here, so another storage backend replaces this one file.
struct MailOutbox: Sendable {
    enum Kind: String, Sendable {
        case invitation
        case passwordReset = "password_reset"
        case digest
    }

    /// A mail waiting for its turn.
    struct Due: Sendable {
        let id: Int64
        let recipient: String
        let message: String
        let attempts: Int
    }

    /// A mail that will not be tried again, for the owner of its workspace.
    struct Failure: Sendable {
        let recipient: String
        let error: String
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

    /// Sent: its text goes (a reset link is a secret), the row stays as a record.
    func markSent(_ id: Int64) async throws {
        let now = Timestamps.database(clock.now())
        try await database.writer.write { db in
            try db.execute(sql: "UPDATE mail_outbox SET sent_at = ?, message = '', attempts = attempts + 1 WHERE id = ?",
                           arguments: [now, id])
        }
    }

    /// Not sent this time: tried again at `next`, or given up on (`next` nil) with its error kept.
    func markFailed(_ id: Int64, error: String, next: Date?) async throws {
        let now = clock.now()
        try await database.writer.write { db in
            if let next {
                try db.execute(sql: "UPDATE mail_outbox SET attempts = attempts + 1, last_error = ?, next_attempt_at = ? WHERE id = ?",
                               arguments: [error, Timestamps.database(next), id])
            } else {
                try db.execute(sql: """
                    UPDATE mail_outbox SET attempts = attempts + 1, last_error = ?, failed_at = ?, message = '' WHERE id = ?
                    """, arguments: [error, Timestamps.database(now), id])
            }
        }
    }

    /// Invitation mail of this workspace that could not be delivered, newest first.
    func failures(workspaceId: Int64) throws -> [Failure] {
        try database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT recipient, last_error, failed_at FROM mail_outbox
                WHERE workspace_id = ? AND failed_at IS NOT NULL ORDER BY failed_at DESC, id DESC LIMIT 20
                """, arguments: [workspaceId]).map { row in
                Failure(recipient: row["recipient"], error: row["last_error"] ?? "",
                        failedAt: row["failed_at"] ?? .distantPast)
            }
        }
    }
}
