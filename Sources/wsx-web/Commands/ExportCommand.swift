import ArgumentParser
import Assets
import Foundation
import Uploads

/// `wsx-web export --workspace W --to FILE.zip`: a workspace in Slack's export format.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Write a workspace in Slack's export format (a zip), so a team can take its history along.",
        discussion: """
            Public channels only, unless --include-private adds private channels, group and direct messages (the \
            workspace's activity log records every export and which it was). Files go inside the zip, under \
            __uploads/<file id>/. The zip (mode 0600) can be imported here again with `wsx-web import slack`: into \
            the same workspace it adds nothing.
            """)

    @OptionGroup var storage: StorageOptions
    private var data: DataDirectoryOption { storage.data }
    @Option(help: "The workspace: its id, or its name when only one workspace has it.") var workspace: String
    @Option(help: "The zip to write (it must not exist yet).") var to: String
    @Flag(name: .customLong("include-private"), help: "Also private channels, group and direct messages.")
    var includePrivate = false
    @Option(name: .customLong("base-url"), help: "Public address of the site, for the files' links (env WSX_BASE_URL).")
    var baseURL: String?

    func run() throws {
        try storage.refusingPostgres("export")
        let destination = URL(fileURLWithPath: to)
        guard !FileManager.default.fileExists(atPath: destination.path) else { throw SlackExportError.exists(to) }
        let directory = data.resolved
        let database = try AppDatabase.open(dataDirectory: directory, events: .runningServer)
        let wanted = workspace
        let workspaceId = try database.query { tx -> Int64 in
            if let id = Int64(wanted), try tx.memberships.workspace(id: id) != nil { return id }
            let ids = try tx.slackImport.workspaceIds(nameKey: NameRules.key(wanted.cleanedLine))
            guard let first = ids.first else { throw SlackExportError.noWorkspace }
            guard ids.count == 1 else { throw SlackExportError.ambiguous(wanted, ids) }
            return first
        }
        var base = baseURL ?? EnvironmentDefaults().string("WSX_BASE_URL") ?? "http://localhost:\(AppConfig().port)"
        while base.hasSuffix("/") { base.removeLast() }
        let export = SlackExport(database: database, store: try FileStore(dataDirectory: directory),
                                 catalog: try EmojiCatalog.embedded(EmbeddedFiles.files(in: "Public")), clock: .system)
        let summary = try export.run(.init(workspaceId: workspaceId, includePrivate: includePrivate, destination: destination,
                                           baseURL: base))
        print("exported workspace \(workspaceId) to \(to) (\(summary.bytes) bytes): \(summary.people) people, "
              + "\(summary.channels) public channels"
              + (includePrivate ? ", \(summary.privateChannels) private, \(summary.groups) group and \(summary.directs) direct conversations" : "")
              + ", \(summary.messages) messages, \(summary.files) files")
    }
}
