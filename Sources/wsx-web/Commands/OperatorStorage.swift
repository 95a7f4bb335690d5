import ArgumentParser
import Logging

/// Where an operator command finds the team: the PostgreSQL database of `--database` (env
/// `WSX_DATABASE`), else the SQLite file in `--data-dir`.
struct StorageOptions: ParsableArguments {
    @OptionGroup var data: DataDirectoryOption
    @OptionGroup var database: DatabaseOption

    /// Runs `body` on it, opened (a PostgreSQL schema that is behind is migrated, as a starting
    /// node does), and closes it afterwards.
    func withDatabase<T>(_ body: (OperatorDatabase) async throws -> T) async throws -> T {
        let opened = try await open()
        do {
            let value = try await body(opened)
            await opened.close()
            return value
        } catch {
            await opened.close()
            throw error
        }
    }

    private func open() async throws -> OperatorDatabase {
        guard let address = try database.address() else {
            let directory = data.resolved
            return OperatorDatabase(database: try AppDatabase.open(dataDirectory: directory, events: .runningServer),
                                    postgres: nil, dataDirectory: directory)
        }
        var logger = Logger(label: "wsx-web")
        logger.logLevel = .warning
        do {
            let backend = try await PostgresBackend.open(address: address, logger: logger, sessionCount: 1)
            return OperatorDatabase(database: AppDatabase(postgres: backend), postgres: backend, dataDirectory: data.resolved)
        } catch let problem as PostgresAddress.Problem {
            throw ValidationError(problem.description)
        } catch let refusal as PostgresSchema.Refusal {
            throw ValidationError(refusal.description)
        }
    }

    /// Throws, saying what to use instead, when a PostgreSQL database is given: `command` works
    /// on a data folder's SQLite file and files together, and on PostgreSQL those are two places
    /// an operator backs up with their own tools.
    func refusingPostgres(_ command: String) throws {
        guard try database.address() != nil else { return }
        throw ValidationError("""
            wsx-web \(command) works on a data folder's SQLite database only, not on PostgreSQL. On PostgreSQL, \
            back up the database with pg_dump (pg_restore to restore) and the files folder (--files-dir) with \
            your file backup.
            """)
    }
}

/// The team's database as an operator command opened it, and how the running server learns of
/// the command's writes.
struct OperatorDatabase {
    let database: AppDatabase
    fileprivate let postgres: PostgresBackend?
    let dataDirectory: String

    /// Tells the server of the command's writes; answers who has them now, if any server does.
    /// On SQLite the server running on the folder is told through its socket; on PostgreSQL
    /// every node was told at the commit (`NOTIFY`), whether it runs or not.
    func tellServers() -> String? {
        if postgres != nil { return "every node on the database" }
        return OutsideWrites.tell(dataDirectory: dataDirectory) ? "the server running on \(dataDirectory)" : nil
    }

    /// Where the server's own secrets are: the data folder's files, or the shared database.
    var secrets: SecretKeeper {
        postgres.map { .database($0) } ?? .folder(dataDirectory)
    }

    /// Closes a PostgreSQL database's connections (SQLite's file closes with the process).
    func close() async {
        await postgres?.close()
    }
}
