import Foundation
import GRDB

extension DataBackup {
    /// Copies the database as of one moment into `target`; answers its applied migrations and
    /// the hashes of every file it refers to.
    ///
    /// This is SQLite's way: the database is one file, and `VACUUM INTO` on a connection of its
    /// own copies one snapshot of it without stopping the server's writer; the copy is then read
    /// for what the archive needs (`grdb_migrations`, `files`). A PostgreSQL database has no file
    /// to copy: its backup is `pg_dump` (one consistent snapshot, taken by the database server)
    /// plus the files folder, and the migrations and file hashes would be read in the dump's
    /// snapshot, so that no file it refers to is left out.
    static func snapshot(_ databasePath: String, into target: String) throws -> (migrations: [String], hashes: Set<String>) {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        let source = try DatabaseQueue(path: databasePath, configuration: configuration)
        try source.writeWithoutTransaction { db in
            try db.execute(sql: "VACUUM INTO ?", arguments: [target])
        }
        try source.close()
        let copy = try DatabaseQueue(path: target)
        defer { try? copy.close() }
        return try copy.read { db in
            let migrations = try db.tableExists("grdb_migrations")
                ? try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier") : []
            let hashes = try db.tableExists("files") ? Set(try String.fetchAll(db, sql: "SELECT sha256 FROM files")) : []
            return (migrations, hashes)
        }
    }
}
