import ArgumentParser

/// `--database postgres://…` (env `WSX_DATABASE`, so the password stays out of `ps`): a PostgreSQL
/// database instead of the SQLite file in the data folder.
struct DatabaseOption: ParsableArguments {
    @Option(name: .customLong("database"),
            help: "A PostgreSQL database, postgres://user[:password]@host[:port]/db[?sslmode=require|verify-full] (env WSX_DATABASE; without it, SQLite in the data folder).")
    var database: String?

    /// The address given, checked; nil when none was (SQLite).
    func address() throws -> PostgresAddress? {
        guard let text = database ?? EnvironmentDefaults().string("WSX_DATABASE") else { return nil }
        do {
            return try PostgresAddress(text)
        } catch let problem as PostgresAddress.Problem {
            throw ValidationError(problem.description)
        }
    }
}
