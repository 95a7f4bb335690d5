import ArgumentParser

/// `wsx-web`: the team chat server and its operator commands.
@main
struct WSXCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wsx-web",
        abstract: "wsx: a self-hosted team chat server.",
        discussion: "Every option also reads a WSX_* environment variable (shown in each option's help).",
        subcommands: [ServeCommand.self, MigrateCommand.self, UserCommand.self, CoinsCommand.self, SeedCommand.self],
        defaultSubcommand: ServeCommand.self
    )
}
