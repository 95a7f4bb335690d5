import ArgumentParser
import Logging

/// `wsx-web migrate`: brings the database schema up to date and exits (the server also does this
/// at start-up). With `--database`, the PostgreSQL database's.
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "migrate", abstract: "Create or update the database schema.")

    @OptionGroup var data: DataDirectoryOption
    @OptionGroup var database: DatabaseOption

    func run() async throws {
        if let address = try database.address() {
            return try await migrate(address)
        }
        let database = try AppDatabase.open(dataDirectory: data.resolved, events: .runningServer)
        let applied = try database.appliedMigrations()
        print("database \(AppDatabase.path(inDataDirectory: data.resolved)) is up to date; migrations applied:")
        for name in applied { print("  \(name)") }
        let admins = try database.query { tx in try tx.accounts.administratorEmails() }
        print(admins.isEmpty ? "no server administrator yet: the first account made is one (or wsx-web user promote)"
                             : "server administrators: \(admins.joined(separator: ", "))")
    }

    private func migrate(_ address: PostgresAddress) async throws {
        let logger = Logger(label: "wsx.migrate")
        do {
            let (now, all) = try await PostgresConnector(address: address, logger: logger).withConnection { connection in
                (try await PostgresSchema.migrate(connection, logger: logger), try await PostgresSchema.applied(connection, logger: logger))
            }
            print("database \(address) is up to date; steps applied\(now.isEmpty ? "" : " (\(now.count) now)"):")
            for name in all { print("  \(name)") }
        } catch let refusal as PostgresSchema.Refusal {
            throw ValidationError(refusal.description)
        } catch let problem as PostgresAddress.Problem {
            throw ValidationError(problem.description)
        }
    }
}
