import ArgumentParser
import Assets
import Foundation
import Logging
import Mail
import Uploads
import Views
#if canImport(Glibc)
import Glibc  // geteuid(): who runs the import
#endif

/// `wsx-web import slack EXPORT.zip --workspace NAME --owner EMAIL`: a team's history from Slack.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "import", abstract: "Bring a team's history over from elsewhere.",
                                                    subcommands: [Slack.self])

    struct Slack: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "slack", abstract: "Import a Slack export (the zip Slack's \"Export data\" makes).",
            discussion: """
                People are matched to accounts by e-mail; the others get accounts without a password and an invitation \
                (listed on the members page, and mailed with --smtp-url) to choose one. Channels, private channels, \
                direct and group messages, threads, reactions and pins come over; files are kept when the export \
                holds them (under __uploads/<file id>/), else named in their message. Importing the same export \
                again adds nothing, and a later one adds what is new. It may run while the server serves the \
                same data folder: the server is told when it is done.
                """)

        @Argument(help: "The export's zip file.") var export: String
        @Option(help: "The workspace to import into: the owner's workspace of this name, made when missing.")
        var workspace: String
        @Option(help: "E-mail of the account (made before, with a password) that owns the workspace.") var owner: String
        @Option(help: "ko or en: the language of the lines standing for files not kept, and of invitation mail (default: the owner's).")
        var lang: String?
        @OptionGroup var storage: StorageOptions
        private var data: DataDirectoryOption { storage.data }
        @OptionGroup var links: OutgoingMailOptions
        @Option(name: .customLong("max-file-size"), help: "Largest file kept, e.g. 5MB, 1GB (env WSX_MAX_FILE_SIZE, default 100MB, as uploads).")
        var maxFileSize: String?

        func run() async throws {
            try storage.refusingPostgres("import")
            let env = EnvironmentDefaults()
            var policy = UploadPolicy()
            if let text = maxFileSize ?? env.string("WSX_MAX_FILE_SIZE") {
                guard let bytes = ByteSizeText.bytes(text), bytes > 0 else {
                    throw ValidationError("--max-file-size: \(text) is not a size like 5MB, 500KB or 1048576")
                }
                policy.maximumFileBytes = bytes
            }
            let chosen = try lang.map { text in
                guard let lang = Lang(rawValue: text) else { throw ValidationError("--lang: \(text) is not ko or en") }
                return lang
            }
            let archive = URL(fileURLWithPath: export)
            guard FileManager.default.isReadableFile(atPath: archive.path) else { throw ValidationError("cannot read \(export)") }
            let directory = data.resolved
            // Files the import keeps are made readable by their maker alone, like uploads: made
            // by another user, the server could not serve them.
            let folderOwner = (try? FileManager.default.attributesOfItem(atPath: directory))?[.ownerAccountID] as? NSNumber
            if let folderOwner, folderOwner.uint32Value != geteuid() {
                throw ValidationError("\(directory) belongs to another user (uid \(folderOwner)): run the import as that user, "
                                      + "e.g. runuser -u wsx -- wsx-web import slack …")
            }
            let database = try AppDatabase.open(dataDirectory: directory, events: .runningServer)
            var logger = Logger(label: "wsx-web import")
            logger.logLevel = .warning
            let files = FileService(database: database,
                                    receiver: UploadReceiver(policy: policy, store: try FileStore(dataDirectory: directory),
                                                             sniffer: try ContentSniffer()),
                                    disk: DiskSpace(dataDirectory: directory, minimumFreeBytes: 0),
                                    thumbnailer: Thumbnailer(library: try ImageLibrary(), policy: policy), clock: .system,
                                    logger: logger, rateLimiter: AccountRateLimiter(limits: .off, clock: .system))
            let importer = SlackImport(database: database, files: files,
                                       catalog: try EmojiCatalog.embedded(EmbeddedFiles.files(in: "Public")),
                                       serverKey: try ServerKey(dataDirectory: directory), mail: try links.composer(), clock: .system,
                                       progress: { print("  \($0)") })
            // A bad export or owner throws an error saying what is wrong (ArgumentParser prints
            // its description and exits 1) before anything is written.
            let summary = try await importer.run(.init(archive: archive, workspaceName: workspace, ownerEmail: owner, lang: chosen))
            summary.lines.forEach { print($0) }
            print(OutsideWrites.tell(dataDirectory: directory)
                  ? "the server running on \(directory) shows it now"
                  : "no server is running on \(directory): it shows the workspace when it starts")
        }
    }
}

/// `--smtp-url`, `--mail-from` and `--base-url` for commands that queue mail the server sends
/// (an import's invitations): with `--smtp-url` (or `WSX_SMTP_URL`) set, mail is written into
/// the queue, with links from `--base-url`.
struct OutgoingMailOptions: ParsableArguments {
    @Option(name: .customLong("smtp-url"), help: "Set when the server sends mail (env WSX_SMTP_URL): invitations are then mailed.")
    var smtpURL: String?
    @Option(name: .customLong("mail-from"), help: "Sender of the mail (env WSX_MAIL_FROM, default wsx <wsx@ the --base-url host>).")
    var mailFrom: String?
    @Option(name: .customLong("base-url"), help: "Public address of the site, for links in mail (env WSX_BASE_URL).")
    var baseURL: String?

    /// The composer of the server's mail, or nil when the server sends none.
    func composer() throws -> MailComposer? {
        let env = EnvironmentDefaults()
        guard let url = smtpURL ?? env.string("WSX_SMTP_URL"), !url.isEmpty else { return nil }
        let base = (baseURL ?? env.string("WSX_BASE_URL")).map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        return MailComposer(from: try MailOptions.sender(mailFrom, baseURL: base, environment: env),
                            site: SiteAddress(configured: base, port: AppConfig().port), clock: .system)
    }
}
