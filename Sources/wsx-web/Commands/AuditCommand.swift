import ArgumentParser
import Foundation
import GRDB
import Uploads

/// `wsx-web audit export`: the security log (sign-ins, administrators' actions, deactivations,
/// two-step changes) and every workspace's activity log, merged in time order, one JSON object
/// per line, for a SIEM or an auditor. Works beside a running server.
struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "audit", abstract: "Export the audit logs.",
                                                    subcommands: [Export.self])

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the security log and the workspaces' activity logs since a time, as JSON lines.")

        @OptionGroup var data: DataDirectoryOption
        @Option(help: "From when: a date (2026-11-01), a time (2026-11-01T09:00:00Z) or a duration back from now (7d, 12h).")
        var since: String
        @Option(help: "jsonl: one JSON object per line.") var format: String = "jsonl"
        @Option(help: "Write here (0600) instead of standard output.") var to: String?

        func run() async throws {
            guard format == "jsonl" else { throw ValidationError("--format: \(format) is not jsonl") }
            guard let start = Self.time(since, now: Date()) else {
                throw ValidationError("--since: \(since) is not a date like 2026-11-01, a time like 2026-11-01T09:00:00Z or a duration like 7d")
            }
            let database = try AppDatabase.open(dataDirectory: data.resolved, events: .runningServer)
            let output: FileHandle
            if let to {
                guard DataFolder.createFile(to) else { throw ValidationError("cannot write \(to) (it may exist already)") }
                guard let handle = FileHandle(forWritingAtPath: to) else { throw ValidationError("cannot write \(to)") }
                output = handle
            } else {
                output = FileHandle.standardOutput
            }
            var count = 0
            try database.read { db in
                try AuditExport.each(db, since: start) { line in
                    output.write(Data((line + "\n").utf8))
                    count += 1
                }
            }
            if to != nil {
                try output.close()
                FileHandle.standardError.write(Data("wrote \(count) lines to \(to!)\n".utf8))
            }
        }

        /// A date, a time, or a duration back from `now`.
        static func time(_ text: String, now: Date) -> Date? {
            if let seconds = DurationText.seconds(text), text.last.map({ "dhms".contains($0) }) == true { return now.addingTimeInterval(-seconds) }
            if let time = try? Date(text, strategy: .iso8601) { return time }
            return try? Date(text + "T00:00:00Z", strategy: .iso8601)
        }
    }
}

/// The two logs as JSON lines, merged by time.
enum AuditExport {
    static func each(_ db: Database, since: Date, _ write: (String) throws -> Void) throws {
        var server: [SecurityLog.Line] = []
        try SecurityLog.each(db, since: since) { server.append($0) }
        let workspace = try Row.fetchCursor(db, sql: """
            SELECT audit_log.*, actor.email AS actor_email, target.email AS target_email, workspaces.name AS workspace_name,
                   rooms.name AS room_name
            FROM audit_log LEFT JOIN users AS actor ON actor.id = audit_log.actor_id
            LEFT JOIN users AS target ON target.id = audit_log.target_user_id
            LEFT JOIN workspaces ON workspaces.id = audit_log.workspace_id
            LEFT JOIN rooms ON rooms.id = audit_log.target_room_id
            WHERE audit_log.created_at >= ? ORDER BY audit_log.created_at, audit_log.id
            """, arguments: [Timestamps.database(since)])
        var next = server.makeIterator()
        var pendingServer = next.next()
        var pendingWorkspace = try workspace.next()
        while pendingServer != nil || pendingWorkspace != nil {
            let workspaceAt: Date? = pendingWorkspace?["created_at"]
            if let line = pendingServer, workspaceAt.map({ line.at <= $0 }) ?? true {
                try write(OutgoingEvent.json(ServerLine(line)))
                pendingServer = next.next()
            } else if let row = pendingWorkspace {
                try write(OutgoingEvent.json(WorkspaceLine(row)))
                pendingWorkspace = try workspace.next()
            }
        }
    }

    /// A line of the security log.
    struct ServerLine: Encodable {
        let time: String, scope = "server", action: String, actor: String?, target: String?, workspaceId: Int64?
        let address: String, email: String, detail: String

        init(_ line: SecurityLog.Line) {
            (time, action, actor, target, workspaceId) = (Timestamps.iso(line.at), line.action, line.actor, line.target, line.workspaceId)
            (address, email, detail) = (line.address, line.email, line.detail)
        }
    }

    /// A line of a workspace's activity log.
    struct WorkspaceLine: Encodable {
        let time: String, scope = "workspace", action: String, actor: String?, target: String?, workspaceId: Int64
        let workspace: String?, room: String?, detail: String

        init(_ row: Row) {
            time = Timestamps.iso(row["created_at"])
            (action, actor, target) = (row["action"], row["actor_email"], row["target_email"])
            (workspaceId, workspace, room, detail) = (row["workspace_id"], row["workspace_name"], row["room_name"], row["detail"])
        }
    }
}
