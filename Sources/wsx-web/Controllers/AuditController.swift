import Foundation
import GRDB
import Hummingbird
import Views

/// `/w/{wid}/audit`: who did what to whom, for the workspace owner.
struct AuditController: Sendable {
    let workspaces: WorkspaceService
    let database: AppDatabase
    let pages: Pages

    func addRoutes(to group: RouterGroup<SignedInContext>) {
        group.get(Paths.audit.routerPath, use: show)
    }

    @Sendable func show(_ request: Request, context: SignedInContext) async throws -> Response {
        let access = try await context.workspaceAccess(workspaces)
        try access.requireOwner()
        let rows = try database.read { db in
            try AuditLine.fetchAll(db, sql: """
                SELECT audit_log.created_at, audit_log.action, audit_log.detail,
                       actor.nickname AS actor, target.nickname AS target, rooms.name AS room
                FROM audit_log
                LEFT JOIN users AS actor ON actor.id = audit_log.actor_id
                LEFT JOIN users AS target ON target.id = audit_log.target_user_id
                LEFT JOIN rooms ON rooms.id = audit_log.target_room_id
                WHERE audit_log.workspace_id = ? ORDER BY audit_log.id DESC LIMIT 500
                """, arguments: [access.workspaceId])
        }
        let strings = context.strings
        let entries = rows.map { line in
            AuditRow(timestamp: Timestamps.iso(line.createdAt), timeText: Timestamps.utcText(line.createdAt),
                     actor: line.actor ?? "—", action: strings.table["audit_\(line.action)"] ?? line.action,
                     target: line.target ?? line.room ?? "", detail: strings.table["audit_detail_\(line.detail)"] ?? line.detail)
        }
        return try await pages.render(.audit, title: strings["audit_title"],
                                      page: AuditPage(workspaceId: access.workspaceId, entries: entries), request: request,
                                      context: context, place: .workspace(access.workspaceId))
    }
}

/// One line of the log with the names it mentions.
private struct AuditLine: Decodable, FetchableRecord, Sendable {
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
