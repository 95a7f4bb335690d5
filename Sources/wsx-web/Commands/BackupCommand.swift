import ArgumentParser
import Foundation

/// `wsx-web backup --to FILE.tar`: a consistent copy of the data folder while the server runs.
struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the database and the files it refers to into one tar archive, while the server runs.",
        discussion: "The archive (mode 0600: it holds password hashes, sessions and secrets) has a manifest with every member's SHA-256. Restore it with `wsx-web restore`.")

    @OptionGroup var storage: StorageOptions
    private var data: DataDirectoryOption { storage.data }
    @Option(help: "The archive to write (replaced when whole, never left half-written).") var to: String

    func run() throws {
        try storage.refusingPostgres("backup")
        let summary = try DataBackup(dataDirectory: data.resolved, clock: .system).write(to: to)
        print("backup written to \(to): \(summary.manifest.entries.count) files, \(summary.bytes) bytes")
    }
}

/// `wsx-web restore --from FILE.tar --data-dir DIR`: a backup back into a data folder.
struct RestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Put a backup made by `wsx-web backup` into a data folder, after checking every checksum.",
        discussion: "The folder must be empty unless --force is given; stop the server that uses it first.")

    @OptionGroup var storage: StorageOptions
    private var data: DataDirectoryOption { storage.data }
    @Option(help: "The archive to restore.") var from: String
    @Flag(help: "Replace the wsx data already in the folder.") var force = false

    func run() throws {
        try storage.refusingPostgres("restore")
        let manifest = try DataRestore(archive: from, dataDirectory: data.resolved, replacing: force).run()
        print("restored \(manifest.entries.count) files from \(from) (made \(manifest.created.formatted(.iso8601))) into \(data.resolved)")
    }
}
