import Foundation
import GRDB

/// `AuditStore` on SQLite: the rows of `audit_log`.
struct SQLiteAuditStore: AuditStore {
    let db: Database

    func add(workspaceId: Int64, actor: Int64?, action: String, targetUser: Int64?, targetRoom: Int64?,
             detail: String, at now: Date) throws {
        _ = try AuditEntry(id: nil, workspaceId: workspaceId, actorId: actor, action: action, targetUserId: targetUser,
                           targetRoomId: targetRoom, detail: detail, createdAt: now).inserted(db)
    }

    func lines(workspaceId: Int64, limit: Int) throws -> [WorkspaceAuditLog.Line] {
        try WorkspaceAuditLog.Line.fetchAll(db, sql: """
            SELECT audit_log.created_at, audit_log.action, audit_log.detail,
                   actor.nickname AS actor, target.nickname AS target, rooms.name AS room
            FROM audit_log
            LEFT JOIN users AS actor ON actor.id = audit_log.actor_id
            LEFT JOIN users AS target ON target.id = audit_log.target_user_id
            LEFT JOIN rooms ON rooms.id = audit_log.target_room_id
            WHERE audit_log.workspace_id = ? ORDER BY audit_log.id DESC LIMIT ?
            """, arguments: [workspaceId, limit])
    }

    func each(since: Date, _ body: (WorkspaceAuditExportLine) throws -> Void) throws {
        let rows = try Row.fetchCursor(db, sql: """
            SELECT audit_log.*, actor.email AS actor_email, target.email AS target_email, workspaces.name AS workspace_name,
                   rooms.name AS room_name
            FROM audit_log LEFT JOIN users AS actor ON actor.id = audit_log.actor_id
            LEFT JOIN users AS target ON target.id = audit_log.target_user_id
            LEFT JOIN workspaces ON workspaces.id = audit_log.workspace_id
            LEFT JOIN rooms ON rooms.id = audit_log.target_room_id
            WHERE audit_log.created_at >= ? ORDER BY audit_log.created_at, audit_log.id
            """, arguments: [Timestamps.database(since)])
        while let row = try rows.next() {
            try body(WorkspaceAuditExportLine(
                at: row["created_at"], action: row["action"], actor: row["actor_email"], target: row["target_email"],
                workspaceId: row["workspace_id"], workspace: row["workspace_name"], room: row["room_name"],
                detail: row["detail"]))
        }
    }
}

/// A line of the owner's view of the log is read by column name (`SQLiteAuditStore.lines`).
extension WorkspaceAuditLog.Line: FetchableRecord {}

extension AuditTrail {
    /// Records who did what to whom inside the transaction of the change, for code still holding a
    /// GRDB connection (`tx.audit.record` otherwise).
    static func record(_ db: Database, workspaceId: Int64, actor: Int64?, action: String, targetUser: Int64? = nil,
                       targetRoom: Int64? = nil, detail: String = "", at now: Date) throws {
        try SQLiteAuditStore(db: db).record(workspaceId: workspaceId, actor: actor, action: action, targetUser: targetUser,
                                            targetRoom: targetRoom, detail: detail, at: now)
    }
}

/// `SecurityLogStore` on SQLite: the rows of `security_log`, with the e-mail addresses of the
/// accounts they name.
struct SQLiteSecurityLogStore: SecurityLogStore {
    let db: Database

    func add(_ action: SecurityLog.Action, actor: Int64?, target: Int64?, workspaceId: Int64?, address: String,
             email: String, detail: String, at now: Date) throws {
        try db.execute(sql: """
            INSERT INTO security_log (action, actor_id, target_user_id, workspace_id, address, email, detail, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [action.rawValue, actor, target, workspaceId, String(address.utf8.prefix(64)) ?? "",
                             LoginThrottle.capped(email), String(detail.prefix(500)), Timestamps.database(now)])
    }

    func lines(limit: Int, beforeId: Int64?) throws -> [SecurityLog.Line] {
        try Row.fetchAll(db, sql: """
            SELECT security_log.*, actor.email AS actor_email, target.email AS target_email FROM security_log
            LEFT JOIN users AS actor ON actor.id = security_log.actor_id
            LEFT JOIN users AS target ON target.id = security_log.target_user_id
            WHERE security_log.id < ? ORDER BY security_log.id DESC LIMIT ?
            """, arguments: [beforeId ?? Int64.max, limit]).map(Self.line)
    }

    func each(since: Date, _ body: (SecurityLog.Line) throws -> Void) throws {
        let rows = try Row.fetchCursor(db, sql: """
            SELECT security_log.*, actor.email AS actor_email, target.email AS target_email FROM security_log
            LEFT JOIN users AS actor ON actor.id = security_log.actor_id
            LEFT JOIN users AS target ON target.id = security_log.target_user_id
            WHERE security_log.created_at >= ? ORDER BY security_log.id
            """, arguments: [Timestamps.database(since)])
        while let row = try rows.next() { try body(Self.line(row)) }
    }

    private static func line(_ row: Row) -> SecurityLog.Line {
        SecurityLog.Line(id: row["id"], action: row["action"], actor: row["actor_email"], target: row["target_email"],
                         workspaceId: row["workspace_id"], address: row["address"], email: row["email"], detail: row["detail"],
                         at: row["created_at"])
    }
}

extension SecurityLog {
    /// Writes one line in the caller's transaction, for code still holding a GRDB connection
    /// (`tx.securityLog.record` otherwise).
    static func record(_ db: Database, _ action: Action, actor: Int64? = nil, target: Int64? = nil, workspaceId: Int64? = nil,
                       address: String = "", email: String = "", detail: String = "", at now: Date) throws {
        try SQLiteSecurityLogStore(db: db).record(action, actor: actor, target: target, workspaceId: workspaceId, address: address,
                                                  email: email, detail: detail, at: now)
    }

    /// The newest lines first, before `beforeId` when given (`tx.securityLog.lines` otherwise).
    static func lines(_ db: Database, limit: Int, beforeId: Int64? = nil) throws -> [Line] {
        try SQLiteSecurityLogStore(db: db).lines(limit: limit, beforeId: beforeId)
    }
}
