import Foundation
import Hummingbird
import Views

/// `/w/{wid}/audit`: who did what to whom, for the workspace owner.
struct AuditController: Sendable {
    let workspaces: WorkspaceService
    let log: WorkspaceAuditLog
    let pages: Pages

    func addRoutes(to group: RouterGroup<SignedInContext>) {
        group.get(Paths.audit.routerPath, use: show)
    }

    @Sendable func show(_ request: Request, context: SignedInContext) async throws -> Response {
        let access = try await context.workspaceAccess(workspaces)
        try access.requireOwner()
        let rows = try log.lines(workspaceId: access.workspaceId)
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
