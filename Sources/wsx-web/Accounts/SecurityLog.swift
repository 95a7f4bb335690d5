import Foundation
import GRDB

/// The server-wide record of what touches accounts: sign-ins (succeeded and failed, with the
/// client's address and at most 254 bytes of the address typed), administrators' actions,
/// deactivations, two-step changes. A workspace's own log (`AuditTrail`) records what happens
/// inside it; `wsx-web audit export` writes both.
enum SecurityLog {
    /// What happened.
    enum Action: String, Sendable, CaseIterable {
        case signIn = "sign_in"
        case signInFailed = "sign_in_failed"
        case signInRefused = "sign_in_refused"
        case signUp = "sign_up"
        case twoStepFailed = "two_step_failed"
        case twoStepOn = "two_step_on"
        case twoStepOff = "two_step_off"
        case twoStepReset = "two_step_reset"
        case recoveryCodeUsed = "recovery_code_used"
        case recoveryCodesRenewed = "recovery_codes_renewed"
        case deactivated
        case reactivated
        case promoted
        case demoted
        case workspaceHandedOver = "workspace_handed_over"
        case emailConfirmed = "email_confirmed"
        case passwordChanged = "password_changed"
        case passwordReset = "password_reset"
    }

    /// One line of the log as administrators and exports read it.
    struct Line: Sendable {
        let id: Int64
        let action: String
        let actor: String?
        let target: String?
        let workspaceId: Int64?
        let address: String
        let email: String
        let detail: String
        let at: Date
    }

    /// The longest e-mail address (RFC 5321): what a failed sign-in keeps of the address typed.
    static let emailBytes = 254

    /// Writes one line in the caller's transaction.
    static func record(_ db: Database, _ action: Action, actor: Int64? = nil, target: Int64? = nil, workspaceId: Int64? = nil,
                       address: String = "", email: String = "", detail: String = "", at now: Date) throws {
        try db.execute(sql: """
            INSERT INTO security_log (action, actor_id, target_user_id, workspace_id, address, email, detail, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [action.rawValue, actor, target, workspaceId, String(address.utf8.prefix(64)) ?? "",
                             LoginThrottle.capped(email), String(detail.prefix(500)), Timestamps.database(now)])
    }

    /// Writes one line in a transaction of its own.
    static func record(_ database: AppDatabase, _ action: Action, actor: Int64? = nil, target: Int64? = nil, address: String = "",
                       email: String = "", detail: String = "", at now: Date) async throws {
        try await database.writer.write { db in
            try record(db, action, actor: actor, target: target, address: address, email: email, detail: detail, at: now)
        }
    }

    /// The newest lines first, before `beforeId` when given.
    static func lines(_ db: Database, limit: Int, beforeId: Int64? = nil) throws -> [Line] {
        try Row.fetchAll(db, sql: """
            SELECT security_log.*, actor.email AS actor_email, target.email AS target_email FROM security_log
            LEFT JOIN users AS actor ON actor.id = security_log.actor_id
            LEFT JOIN users AS target ON target.id = security_log.target_user_id
            WHERE security_log.id < ? ORDER BY security_log.id DESC LIMIT ?
            """, arguments: [beforeId ?? Int64.max, limit]).map(line)
    }

    /// Every line at or after `since`, oldest first, through `body` a row at a time.
    static func each(_ db: Database, since: Date, _ body: (Line) throws -> Void) throws {
        let rows = try Row.fetchCursor(db, sql: """
            SELECT security_log.*, actor.email AS actor_email, target.email AS target_email FROM security_log
            LEFT JOIN users AS actor ON actor.id = security_log.actor_id
            LEFT JOIN users AS target ON target.id = security_log.target_user_id
            WHERE security_log.created_at >= ? ORDER BY security_log.id
            """, arguments: [Timestamps.database(since)])
        while let row = try rows.next() { try body(line(row)) }
    }

    private static func line(_ row: Row) -> Line {
        Line(id: row["id"], action: row["action"], actor: row["actor_email"], target: row["target_email"],
             workspaceId: row["workspace_id"], address: row["address"], email: row["email"], detail: row["detail"],
             at: row["created_at"])
    }
}
