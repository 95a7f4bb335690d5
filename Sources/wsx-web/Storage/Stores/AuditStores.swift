import Foundation

/// One line of a workspace's log as the export writes it (`AuditExport`), with the addresses and
/// names it mentions.
struct WorkspaceAuditExportLine: Sendable {
    let at: Date
    let action: String
    /// The actor's e-mail address, nil when there is none (or the account is gone).
    let actor: String?
    /// The target person's e-mail address, if the line has one.
    let target: String?
    let workspaceId: Int64
    /// The workspace's name, nil when it is gone.
    let workspace: String?
    /// The target room's name, if the line has one.
    let room: String?
    let detail: String
}

/// Workspaces' audit logs: who did what to whom in a workspace (`AuditTrail`,
/// `WorkspaceAuditLog`).
protocol AuditStore {
    /// Records one line in this transaction, the transaction of the change it describes
    /// (`record(…)` has the usual defaults).
    func add(workspaceId: Int64, actor: Int64?, action: String, targetUser: Int64?, targetRoom: Int64?,
             detail: String, at now: Date) throws
    /// The newest `limit` lines of the workspace's log, newest first, with the names they mention.
    func lines(workspaceId: Int64, limit: Int) throws -> [WorkspaceAuditLog.Line]
    /// Every workspace's lines made at or after `since`, oldest first, through `body` one at a time.
    func each(since: Date, _ body: (WorkspaceAuditExportLine) throws -> Void) throws
}

extension AuditStore {
    /// Records who did what to whom, in this transaction (`add`, with no target and no detail
    /// unless given).
    func record(workspaceId: Int64, actor: Int64?, action: String, targetUser: Int64? = nil,
                targetRoom: Int64? = nil, detail: String = "", at now: Date) throws {
        try add(workspaceId: workspaceId, actor: actor, action: action, targetUser: targetUser, targetRoom: targetRoom,
                detail: detail, at: now)
    }
}

/// The server-wide security log (`SecurityLog`): sign-ins, administrators' actions,
/// deactivations, two-step changes.
protocol SecurityLogStore {
    /// Records one line in this transaction. What is kept is capped: 64 bytes of the address, the
    /// e-mail address as `LoginThrottle.capped` cuts it, 500 characters of the detail.
    func add(_ action: SecurityLog.Action, actor: Int64?, target: Int64?, workspaceId: Int64?, address: String,
             email: String, detail: String, at now: Date) throws
    /// The newest `limit` lines first, those before `beforeId` when given.
    func lines(limit: Int, beforeId: Int64?) throws -> [SecurityLog.Line]
    /// Every line made at or after `since`, oldest first, through `body` one at a time.
    func each(since: Date, _ body: (SecurityLog.Line) throws -> Void) throws
}

extension SecurityLogStore {
    /// Records one line in this transaction (`add`, with what is not given left empty).
    func record(_ action: SecurityLog.Action, actor: Int64? = nil, target: Int64? = nil, workspaceId: Int64? = nil,
                address: String = "", email: String = "", detail: String = "", at now: Date) throws {
        try add(action, actor: actor, target: target, workspaceId: workspaceId, address: address, email: email,
                detail: detail, at: now)
    }
}
