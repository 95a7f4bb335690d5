import ArgumentParser
import Foundation
import Logging

/// `wsx-web copy --from DIR --to postgres://… [--files-dir DIR]`: a team moved from SQLite to PostgreSQL.
struct CopyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy", abstract: "Copy a team from a data folder's SQLite database to an empty PostgreSQL database.",
        discussion: """
            Every table and the event log move with their ids, so links, bookmarks and browsers' places in the \
            live stream stay valid; the folder's secrets (invitation links, device cookies, push keys) go along. \
            The schema is made on an empty database; a database that holds a team is refused. With --files-dir \
            the files the team's messages refer to are copied there too. Stop the server on the folder first. \
            Then run every node with --database and --files-dir.
            """)

    @Option(help: "The data folder to copy from (its wsx.sqlite and files).") var from: String
    @Option(help: "The PostgreSQL database to copy to, postgres://user[:password]@host[:port]/db (env WSX_DATABASE).")
    var to: String?
    @Option(name: .customLong("files-dir"), help: "Copy the team's files into this folder, the nodes' --files-dir.")
    var filesDirectory: String?

    func run() async throws {
        guard let text = to ?? EnvironmentDefaults().string("WSX_DATABASE") else { throw ValidationError("give --to postgres://… or set WSX_DATABASE") }
        let address: PostgresAddress
        do { address = try PostgresAddress(text) } catch let problem as PostgresAddress.Problem { throw ValidationError(problem.description) }
        // No server may write the folder while it is read: what it wrote after would be lost.
        let lock: DataFolderLock
        do { lock = try DataFolderLock.acquire(dataDirectory: from) } catch let held as DataFolderLock.Held { throw ValidationError(held.description) }
        defer { withExtendedLifetime(lock) {} }
        var logger = Logger(label: "wsx-web copy")
        logger.logLevel = .warning
        let backend: PostgresBackend
        do {
            backend = try await PostgresBackend.open(address: address, logger: logger, sessionCount: 1)
        } catch let problem as PostgresAddress.Problem {
            throw ValidationError(problem.description)
        } catch let refusal as PostgresSchema.Refusal {
            throw ValidationError(refusal.description)
        }
        let copy = TeamCopy(dataDirectory: from, progress: { print("  \($0)") })
        do {
            var summary = TeamCopy.Summary()
            if let filesDirectory {
                try copy.copyFiles(to: filesDirectory, summary: &summary)
                print("files: \(summary.files) copied into \(filesDirectory) (\(summary.fileBytes) bytes, thumbnails included)")
            }
            let copied = try copy.run(into: backend)
            await backend.close()
            print("copied \(from) to \(address):")
            for table in copied.tables { print("  \(table.name.padding(toLength: 22, withPad: " ", startingAt: 0)) \(String(table.rows).leftPadded(9)) rows  checksum \(table.checksum)") }
            print("search index: \(copied.indexedMessages) messages; secrets: \(copied.secrets.joined(separator: ", "))")
            if !copied.skipped.isEmpty { print("not copied (PostgreSQL keeps no such table): \(copied.skipped.joined(separator: ", "))") }
            if filesDirectory == nil { print("files stay in \(from); give --files-dir to copy them where the nodes keep files") }
        } catch let error as CopyError {
            await backend.close()
            throw ValidationError(error.description)
        } catch {
            await backend.close()
            throw ValidationError("nothing was copied: " + (PostgresCopyTarget.refusal(error) ?? "\(error)"))
        }
    }
}

private extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
