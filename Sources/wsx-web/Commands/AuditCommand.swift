import ArgumentParser
import Foundation
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

        @OptionGroup var storage: StorageOptions
        @Option(help: "From when: a date (2026-11-01), a time (2026-11-01T09:00:00Z) or a duration back from now (7d, 12h).")
        var since: String
        @Option(help: "jsonl: one JSON object per line.") var format: String = "jsonl"
        @Option(help: "Write here (0600) instead of standard output.") var to: String?

        func run() async throws {
            guard format == "jsonl" else { throw ValidationError("--format: \(format) is not jsonl") }
            guard let start = Self.time(since, now: Date()) else {
                throw ValidationError("--since: \(since) is not a date like 2026-11-01, a time like 2026-11-01T09:00:00Z or a duration like 7d")
            }
            try await storage.withDatabase { opened in try write(from: opened.database, since: start) }
        }

        private func write(from database: AppDatabase, since start: Date) throws {
            let output: FileHandle
            if let to {
                guard DataFolder.createFile(to) else { throw ValidationError("cannot write \(to) (it may exist already)") }
                guard let handle = FileHandle(forWritingAtPath: to) else { throw ValidationError("cannot write \(to)") }
                output = handle
            } else {
                output = FileHandle.standardOutput
            }
            var count = 0
            try database.query { tx in
                try AuditExport.each(tx, since: start) { line in
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
    /// Every line of both logs made at or after `since`, oldest first (a security log line first
    /// when two have the same time), through `write` as JSON, in the read transaction `tx`.
    static func each(_ tx: any StoreTransaction, since: Date, _ write: (String) throws -> Void) throws {
        var server: [SecurityLog.Line] = []
        try tx.securityLog.each(since: since) { server.append($0) }
        var next = server.makeIterator()
        var pendingServer = next.next()
        try tx.audit.each(since: since) { line in
            // The security log's lines up to this one's time go first.
            while let serverLine = pendingServer, serverLine.at <= line.at {
                try write(OutgoingEvent.json(ServerLine(serverLine)))
                pendingServer = next.next()
            }
            try write(OutgoingEvent.json(WorkspaceLine(line)))
        }
        while let serverLine = pendingServer {
            try write(OutgoingEvent.json(ServerLine(serverLine)))
            pendingServer = next.next()
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

        init(_ line: WorkspaceAuditExportLine) {
            time = Timestamps.iso(line.at)
            (action, actor, target) = (line.action, line.actor, line.target)
            (workspaceId, workspace, room, detail) = (line.workspaceId, line.workspace, line.room, line.detail)
        }
    }
}
