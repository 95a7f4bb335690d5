import Foundation
import GRDB

/// A data folder's SQLite database read table by table in one snapshot, for `wsx-web copy`.
struct SQLiteTableReader {
    private let db: Database

    /// Opens the folder's database (brought up to date first, as a starting server would) and
    /// runs `body` in one read transaction: every table as of one moment.
    static func read<T>(dataDirectory: String, _ body: (SQLiteTableReader) throws -> T) throws -> T {
        let path = AppDatabase.path(inDataDirectory: dataDirectory)
        guard FileManager.default.fileExists(atPath: path) else { throw CopyError("\(path) does not exist: no wsx data folder there") }
        let database = try AppDatabase.open(dataDirectory: dataDirectory, events: .runningServer)
        return try database.read { db in try body(SQLiteTableReader(db: db)) }
    }

    /// The tables wsx made (not SQLite's own, GRDB's migrations, or the full-text index, which is
    /// SQLite's alone).
    func tables() throws -> [String] {
        try String.fetchAll(db, sql: """
            SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
              AND name NOT LIKE 'grdb_%' AND name NOT LIKE 'message_index%' ORDER BY name
            """)
    }

    func columns(of table: String) throws -> [String] {
        try Row.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?) ORDER BY cid", arguments: [table]).map { $0["name"] }
    }

    func count(of table: String) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table.quotedDatabaseIdentifier)") ?? 0
    }

    /// Every row of `table`'s `columns`, by `id` when it has one (a row's parent in the same table
    /// comes first), in batches of `size`.
    func rows(of table: String, columns: [String], orderedById: Bool, size: Int, _ body: ([[CopiedValue]]) throws -> Void) throws {
        let list = columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")
        let cursor = try Row.fetchCursor(db, sql: "SELECT \(list) FROM \(table.quotedDatabaseIdentifier)" + (orderedById ? " ORDER BY id" : ""))
        var batch: [[CopiedValue]] = []
        batch.reserveCapacity(size)
        while let row = try cursor.next() {
            batch.append((0..<columns.count).map { index in
                switch row[index] as DatabaseValue {
                case let value where value.isNull: .null
                case let value: switch value.storage {
                    case .int64(let number): .integer(number)
                    case .double(let number): .real(number)
                    case .string(let text): .text(text)
                    case .blob(let bytes): .blob(bytes)
                    case .null: .null
                    }
                }
            })
            if batch.count == size {
                try body(batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
        if !batch.isEmpty { try body(batch) }
    }
}
