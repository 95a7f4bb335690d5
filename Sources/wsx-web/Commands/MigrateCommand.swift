import ArgumentParser

/// `wsx-web migrate`: brings the database schema up to date and exits (the server also does this
/// at start-up).
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "migrate", abstract: "Create or update the database schema.")

    @OptionGroup var data: DataDirectoryOption

    func run() async throws {
        let database = try AppDatabase.open(dataDirectory: data.resolved, events: .runningServer)
        let applied = try database.appliedMigrations()
        print("database \(AppDatabase.path(inDataDirectory: data.resolved)) is up to date; migrations applied:")
        for name in applied { print("  \(name)") }
        let admins = try database.query { tx in try tx.accounts.administratorEmails() }
        print(admins.isEmpty ? "no server administrator yet: the first account made is one (or wsx-web user promote)"
                             : "server administrators: \(admins.joined(separator: ", "))")
    }
}
