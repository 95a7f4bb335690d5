import Foundation
import PostgresNIO

/// `AuditStore` on PostgreSQL: the rows of `audit_log`, with the names and addresses they
/// mention.
struct PostgresAuditStore: AuditStore {
    let session: PostgresSession

    func add(workspaceId: Int64, actor: Int64?, action: String, targetUser: Int64?, targetRoom: Int64?,
             detail: String, at now: Date) throws {
        try session.run("""
            INSERT INTO audit_log (workspace_id, actor_id, action, target_user_id, target_room_id, detail, created_at)
            VALUES (\(workspaceId), \(actor), \(action), \(targetUser), \(targetRoom), \(detail), \(now))
            """)
    }

    func lines(workspaceId: Int64, limit: Int) throws -> [WorkspaceAuditLog.Line] {
        try session.run("""
            SELECT audit_log.created_at, audit_log.action, audit_log.detail, actor.nickname, target.nickname, rooms.name
            FROM audit_log
            LEFT JOIN users AS actor ON actor.id = audit_log.actor_id
            LEFT JOIN users AS target ON target.id = audit_log.target_user_id
            LEFT JOIN rooms ON rooms.id = audit_log.target_room_id
            WHERE audit_log.workspace_id = \(workspaceId) ORDER BY audit_log.id DESC LIMIT \(limit)
            """).map { row in
            let (createdAt, action, detail, actor, target, room) = try row.decode((Date, String, String, String?, String?, String?).self)
            return WorkspaceAuditLog.Line(createdAt: createdAt, action: action, detail: detail, actor: actor, target: target, room: room)
        }
    }

    func each(since: Date, _ body: (WorkspaceAuditExportLine) throws -> Void) throws {
        try session.eachRow(cursor: "audit_log_export", of: """
            SELECT audit_log.created_at, audit_log.action, actor.email, target.email, audit_log.workspace_id, workspaces.name,
                   rooms.name, audit_log.detail
            FROM audit_log
            LEFT JOIN users AS actor ON actor.id = audit_log.actor_id
            LEFT JOIN users AS target ON target.id = audit_log.target_user_id
            LEFT JOIN workspaces ON workspaces.id = audit_log.workspace_id
            LEFT JOIN rooms ON rooms.id = audit_log.target_room_id
            WHERE audit_log.created_at >= \(since) ORDER BY audit_log.created_at, audit_log.id
            """) { row in
            let (at, action, actor, target, workspaceId, workspace, room, detail) =
                try row.decode((Date, String, String?, String?, Int64, String?, String?, String).self)
            try body(WorkspaceAuditExportLine(at: at, action: action, actor: actor, target: target, workspaceId: workspaceId,
                                              workspace: workspace, room: room, detail: detail))
        }
    }
}

/// `SecurityLogStore` on PostgreSQL: the rows of `security_log`, with the e-mail addresses of the
/// accounts they name.
struct PostgresSecurityLogStore: SecurityLogStore {
    let session: PostgresSession

    /// The bytes of the client's address that are kept.
    private static let addressBytes = 64
    /// The characters of the detail that are kept.
    private static let detailCharacters = 500

    private static let columns = """
        security_log.id, security_log.action, actor.email, target.email, security_log.workspace_id, security_log.address,
        security_log.email, security_log.detail, security_log.created_at
        """
    private static let accounts = """
        LEFT JOIN users AS actor ON actor.id = security_log.actor_id
        LEFT JOIN users AS target ON target.id = security_log.target_user_id
        """

    func add(_ action: SecurityLog.Action, actor: Int64?, target: Int64?, workspaceId: Int64?, address: String,
             email: String, detail: String, at now: Date) throws {
        try session.run("""
            INSERT INTO security_log (action, actor_id, target_user_id, workspace_id, address, email, detail, created_at)
            VALUES (\(action.rawValue), \(actor), \(target), \(workspaceId), \(Self.kept(address: address)),
                    \(LoginThrottle.capped(email)), \(String(detail.prefix(Self.detailCharacters))), \(now))
            """)
    }

    func lines(limit: Int, beforeId: Int64?) throws -> [SecurityLog.Line] {
        try session.run("""
            SELECT \(unescaped: Self.columns) FROM security_log \(unescaped: Self.accounts)
            WHERE security_log.id < \(beforeId ?? Int64.max) ORDER BY security_log.id DESC LIMIT \(limit)
            """).map(Self.line)
    }

    func each(since: Date, _ body: (SecurityLog.Line) throws -> Void) throws {
        try session.eachRow(cursor: "security_log_export", of: """
            SELECT \(unescaped: Self.columns) FROM security_log \(unescaped: Self.accounts)
            WHERE security_log.created_at >= \(since) ORDER BY security_log.id
            """) { row in try body(Self.line(row)) }
    }

    /// The first 64 bytes of the address, or nothing when they end inside a character (as on
    /// SQLite, which keeps the bytes only when they are whole UTF-8).
    private static func kept(address: String) -> String {
        String(address.utf8.prefix(addressBytes)) ?? ""
    }

    private static func line(_ row: PostgresRow) throws -> SecurityLog.Line {
        let (id, action, actor, target, workspaceId, address, email, detail, at) =
            try row.decode((Int64, String, String?, String?, Int64?, String, String, String, Date).self)
        return SecurityLog.Line(id: id, action: action, actor: actor, target: target, workspaceId: workspaceId, address: address,
                                email: email, detail: detail, at: at)
    }
}

extension PostgresSession {
    /// How many rows an export fetches from its cursor at a time.
    private static let cursorBatch = 500

    /// Hands each row of `query` to `body`, fetched through a cursor a batch at a time: an export
    /// of a long log never holds it all, and reads it as it was when it started (what a cursor
    /// over a SQLite read gives). Runs inside the store's transaction; `name` is the cursor's,
    /// closed when done or when `body` throws.
    func eachRow(cursor name: String, of query: PostgresQuery, _ body: (PostgresRow) throws -> Void) throws {
        try run(PostgresQuery(unsafeSQL: "DECLARE \(name) NO SCROLL CURSOR FOR \(query.sql)", binds: query.binds))
        defer { _ = try? run("CLOSE \(unescaped: name)") }
        while true {
            let rows = try run("FETCH \(unescaped: String(Self.cursorBatch)) FROM \(unescaped: name)")
            for row in rows { try body(row) }
            if rows.count < Self.cursorBatch { return }
        }
    }
}
