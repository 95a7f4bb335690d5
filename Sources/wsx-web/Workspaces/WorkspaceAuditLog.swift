import Foundation
import GRDB

/// A workspace's audit log as its owner reads it: who did what to whom, newest first.
struct WorkspaceAuditLog: Sendable {
    let database: AppDatabase

    /// One line of the log with the names it mentions.
    struct Line: Decodable, FetchableRecord, Sendable {
        let createdAt: Date
        let action: String
        let detail: String
        let actor: String?
        let target: String?
        let room: String?

        enum CodingKeys: String, CodingKey {
            case createdAt = "created_at", action, detail, actor, target, room
        }
    }

    /// The newest `limit` lines of `workspaceId`'s log.
    func lines(workspaceId: Int64, limit: Int = 500) throws -> [Line] {
        try database.read { db in
            try Line.fetchAll(db, sql: """
                SELECT audit_log.created_at, audit_log.action, audit_log.detail,
                       actor.nickname AS actor, target.nickname AS target, rooms.name AS room
                FROM audit_log
                LEFT JOIN users AS actor ON actor.id = audit_log.actor_id
                LEFT JOIN users AS target ON target.id = audit_log.target_user_id
                LEFT JOIN rooms ON rooms.id = audit_log.target_room_id
                WHERE audit_log.workspace_id = ? ORDER BY audit_log.id DESC LIMIT ?
                """, arguments: [workspaceId, limit])
        }
    }
}
