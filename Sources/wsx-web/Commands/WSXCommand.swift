import ArgumentParser
import Uploads

/// `wsx-web`: the team chat server and its operator commands.
@main
struct WSXCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wsx-web",
        abstract: "wsx: a self-hosted team chat server.",
        discussion: "Every option also reads a WSX_* environment variable (shown in each option's help).",
        version: BuildInfo.version,
        subcommands: [ServeCommand.self, MigrateCommand.self, UserCommand.self, CoinsCommand.self, SeedCommand.self,
                      BackupCommand.self, RestoreCommand.self, ImportCommand.self, ExportCommand.self, AuditCommand.self,
                      CopyCommand.self],
        defaultSubcommand: ServeCommand.self
    )

    /// ArgumentParser's own entry, after making every file this process creates its user's
    /// alone (the data folder holds password hashes, sessions, secrets and uploads).
    static func main() async {
        DataFolder.restrictNewFiles()
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}
