import Foundation

/// A workspace's audit log as its owner reads it: who did what to whom, newest first.
struct WorkspaceAuditLog: Sendable {
    let database: AppDatabase

    /// One line of the log with the names it mentions.
    struct Line: Decodable, Sendable {
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
        try database.query { tx in try tx.audit.lines(workspaceId: workspaceId, limit: limit) }
    }
}

/// Records who did what to whom, inside the transaction of the change: `tx.audit.record`, or
/// `AuditTrail.record` for code still holding a GRDB connection (`Storage/SQLite/`).
enum AuditTrail {}
