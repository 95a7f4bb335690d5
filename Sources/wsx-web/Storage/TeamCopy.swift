import Crypto
import Foundation
import Uploads
import Views

/// `wsx-web copy`: a team moved from a data folder's SQLite database to an empty PostgreSQL
/// database, every id kept (links, bookmarks and `Last-Event-ID` stay valid).
///
/// Everything happens in one PostgreSQL transaction, read from one SQLite snapshot: the target
/// has the whole team or nothing. Tables go in an order their foreign keys allow (a key in a
/// cycle, such as an account's avatar file, is filled in once its table is there), with their
/// triggers off, since the counts they keep arrive copied. Then the id sequences and the event
/// counter move past the copied ids, the search index is built from the messages, the folder's
/// secrets become the database's (invitation links and device cookies stay valid), and each
/// table is read back and compared with what was read, by row count and checksum.
struct TeamCopy {
    /// One table's outcome: rows, and the checksum both sides agreed on.
    struct Table: Sendable, Equatable {
        let name: String
        let rows: Int
        let checksum: String
    }

    struct Summary: Sendable {
        var tables: [Table] = []
        var indexedMessages = 0
        var secrets: [String] = []
        var files = 0
        var fileBytes: Int64 = 0
        /// Tables of the SQLite database PostgreSQL has no place for (none, when both are current).
        var skipped: [String] = []
    }

    /// Tables whose rows tell that a database already holds a team.
    static let teamTables = ["users", "workspaces", "rooms", "messages", "events", "files"]
    /// Rows per insert statement (PostgreSQL takes at most 65,535 parameters in one).
    static let batchRows = 500

    let dataDirectory: String
    let progress: (String) -> Void

    /// Copies the folder's team into `target`, which must hold none (its schema is up to date).
    func run(into target: PostgresBackend) throws -> Summary {
        try SQLiteTableReader.read(dataDirectory: dataDirectory) { source in
            try target.withSessionNow { session in
                try session.transaction {
                    try copy(from: source, to: PostgresCopyTarget(session: session))
                }
            }
        }
    }

    /// The files the team's rows refer to, and their thumbnails, into `filesDirectory`: each
    /// checked against its name (its SHA-256) and flushed to disk before its rename.
    func copyFiles(to filesDirectory: String, summary: inout Summary) throws {
        let from = try FileStore(dataDirectory: dataDirectory), to = try FileStore(dataDirectory: filesDirectory)
        let hashes = try SQLiteTableReader.read(dataDirectory: dataDirectory) { source in
            var hashes: [String] = []
            try source.rows(of: "files", columns: ["sha256"], orderedById: false, size: Self.batchRows) { rows in
                for row in rows { if case .text(let hash) = row[0] { hashes.append(hash) } }
            }
            return Set(hashes).sorted()
        }
        for hash in hashes {
            let original = from.original(hash)
            guard FileManager.default.fileExists(atPath: original.path) else { throw CopyError("\(original.path) is missing: its row has no bytes to copy") }
            summary.fileBytes += try Self.copy(original, to: to.original(hash), checking: hash)
            summary.files += 1
            let thumbnail = from.thumbnail(hash)
            if FileManager.default.fileExists(atPath: thumbnail.path) {
                summary.fileBytes += try Self.copy(thumbnail, to: to.thumbnail(hash), checking: nil)
            }
        }
    }

    // MARK: The rows

    private func copy(from source: SQLiteTableReader, to target: PostgresCopyTarget) throws -> Summary {
        var summary = Summary()
        let columnsByTable = try target.tables()
        let sourceTables = try source.tables()
        let tables = sourceTables.filter { columnsByTable[$0] != nil }
        summary.skipped = sourceTables.filter { columnsByTable[$0] == nil }
        for table in Self.teamTables where tables.contains(table) {
            guard try target.count(of: table) == 0 else {
                throw CopyError("the PostgreSQL database already holds a team (\(table) has rows): copy into an empty database")
            }
        }
        let (order, waiting) = try Self.order(tables, keys: try target.foreignKeys(), columns: columnsByTable)
        for table in tables {
            try target.triggers(on: table, enabled: false)
            try target.empty(table)
        }
        var sums: [String: RowSum] = [:]
        var copiedColumns: [String: [PostgresCopyTarget.Column]] = [:]
        var later: [(table: String, column: PostgresCopyTarget.Column, values: [(id: String, value: String)])] = []
        for table in order {
            let sourceColumns = Set(try source.columns(of: table))
            let columns = columnsByTable[table]!.filter { sourceColumns.contains($0.name) }
            copiedColumns[table] = columns
            let waitingHere = Set(waiting.filter { $0.table == table }.map(\.column))
            let idIndex = columns.firstIndex { $0.name == "id" }
            var sum = RowSum()
            var held: [String: [(id: String, value: String)]] = [:]
            try source.rows(of: table, columns: columns.map(\.name), orderedById: idIndex != nil, size: Self.batchRows) { batch in
                let texts = try batch.map { row in
                    try zip(columns, row).map { column, value in try CopiedText.text(value, type: column.type, column: "\(table).\(column.name)") }
                }
                var rows: [[String?]] = []
                rows.reserveCapacity(texts.count)
                for row in texts {
                    sum.add(row)
                    var inserted = row
                    for (index, column) in columns.enumerated() where waitingHere.contains(column.name) {
                        if let value = row[index], let idIndex, let id = row[idIndex] { held[column.name, default: []].append((id, value)) }
                        inserted[index] = nil
                    }
                    rows.append(inserted)
                }
                try target.insert(table, columns: columns, rows: rows)
            }
            for (name, values) in held { later.append((table, columns.first { $0.name == name }!, values)) }
            sums[table] = sum
            if idIndex != nil { try target.advanceIds(of: table) }
            progress("\(table): \(sum.count) rows")
        }
        for (table, column, values) in later { try target.update(table, column: column, byId: values) }
        for table in tables { try target.triggers(on: table, enabled: true) }
        try target.advanceEventCounter()
        summary.indexedMessages = try target.indexMessages { MessageHTML.render($0, members: .none).plain }
        for name in SecretKeeper.names {
            let path = URL(fileURLWithPath: dataDirectory).appendingPathComponent(name)
            guard let value = FileManager.default.contents(atPath: path.path) else { continue }
            try target.keepSecret(name, value)
            summary.secrets.append(name)
        }
        for table in order {
            var copied = RowSum()
            try target.texts(of: table, columns: copiedColumns[table]!) { copied.add($0) }
            guard copied == sums[table] else {
                throw CopyError("\(table) read back differs from what was copied (\(copied.count) rows against \(sums[table]?.count ?? 0)): nothing was kept")
            }
            summary.tables.append(Table(name: table, rows: copied.count, checksum: copied.hex))
        }
        summary.tables.sort { $0.name < $1.name }
        return summary
    }

    /// An order of the tables in which every foreign key's table comes before the tables pointing
    /// at it, and the keys that must wait (nullable ones in a cycle, filled in at the end).
    static func order(_ tables: [String], keys: [PostgresCopyTarget.ForeignKey],
                      columns: [String: [PostgresCopyTarget.Column]]) throws -> (order: [String], waiting: [PostgresCopyTarget.ForeignKey]) {
        let present = Set(tables)
        var edges = keys.filter { $0.table != $0.references && present.contains($0.table) && present.contains($0.references) }
        var waiting: [PostgresCopyTarget.ForeignKey] = []
        var order: [String] = [], placed: Set<String> = []
        while placed.count < tables.count {
            let ready = tables.filter { table in
                !placed.contains(table) && edges.allSatisfy { $0.table != table || placed.contains($0.references) }
            }
            if !ready.isEmpty {
                order += ready
                placed.formUnion(ready)
                continue
            }
            // A cycle: one of its nullable keys waits until every table is in.
            guard let index = edges.firstIndex(where: { edge in
                !placed.contains(edge.table) && !placed.contains(edge.references)
                    && columns[edge.table]?.first(where: { $0.name == edge.column })?.nullable == true
                    && columns[edge.table]?.contains(where: { $0.name == "id" }) == true
            }) else {
                throw CopyError("the tables' foreign keys form a cycle with no key that may wait: \(tables.filter { !placed.contains($0) })")
            }
            waiting.append(edges.remove(at: index))
        }
        return (order, waiting)
    }

    /// Copies one file to `target` (if not there already): under a temporary name, flushed,
    /// renamed; its SHA-256 must be `hash` when one is given. Answers the bytes copied.
    private static func copy(_ source: URL, to target: URL, checking hash: String?) throws -> Int64 {
        let manager = FileManager.default
        if manager.fileExists(atPath: target.path) { return 0 }
        try DataFolder.createFolder(target.deletingLastPathComponent().path)
        let partial = target.deletingLastPathComponent().appendingPathComponent(".partial-\(UUID().uuidString)")
        guard let data = manager.contents(atPath: source.path) else { throw CopyError("cannot read \(source.path)") }
        if let hash, SHA256.hash(data: data).map({ String(format: "%02x", $0) }).joined() != hash {
            throw CopyError("\(source.path) does not hold the bytes its name says (SHA-256): the data folder is damaged")
        }
        guard DataFolder.createFile(partial.path), let handle = FileHandle(forWritingAtPath: partial.path) else {
            throw CopyError("cannot write \(partial.path)")
        }
        do {
            try handle.write(contentsOf: data)
            try handle.synchronize()
            try handle.close()
            try manager.moveItem(at: partial, to: target)
        } catch {
            try? manager.removeItem(at: partial)
            throw error
        }
        return Int64(data.count)
    }
}

/// An order-free checksum of rows: how many, and the sum of each row's SHA-256 (its first eight bytes).
struct RowSum: Equatable {
    private(set) var count = 0
    private var sum: UInt64 = 0

    mutating func add(_ row: [String?]) {
        var text = ""
        for cell in row {
            if let cell { text += cell + "\u{1F}" } else { text += "\u{0}\u{1F}" }
        }
        let digest = SHA256.hash(data: Data(text.utf8))
        sum &+= digest.prefix(8).reduce(UInt64(0)) { ($0 << 8) | UInt64($1) }
        count += 1
    }

    var hex: String { String(format: "%016llx", sum) }
}

/// A SQLite value as the text PostgreSQL takes for a column of `type` (cast there), and as the
/// copy's checksum reads both sides.
enum CopiedText {
    static func text(_ value: CopiedValue, type: String, column: String) throws -> String? {
        switch (value, type) {
        case (.null, _): return nil
        case (.integer(let number), "int8"), (.integer(let number), "int4"), (.integer(let number), "int2"): return String(number)
        case (.text(let text), "int8"), (.text(let text), "int4"), (.text(let text), "int2"):
            guard let number = Int64(text) else { break }
            return String(number)
        case (.integer(let number), "bool"): return number != 0 ? "1" : "0"
        case (.text(let text), "timestamptz"):
            guard let time = time(text) else { break }
            return time
        case (.integer(let seconds), "timestamptz"): return Timestamps.database(Date(timeIntervalSince1970: Double(seconds)))
        case (.real(let seconds), "timestamptz"): return Timestamps.database(Date(timeIntervalSince1970: seconds))
        case (.blob(let bytes), "bytea"): return bytes.map { String(format: "%02x", $0) }.joined()
        case (.text(let text), "bytea"): return Data(text.utf8).map { String(format: "%02x", $0) }.joined()
        case (.text(let text), "text"): return text
        case (.integer(let number), "text"): return String(number)
        case (.real(let number), "text"): return String(number)
        case (.real(let number), "int8") where number == number.rounded(): return String(Int64(number))
        case (.blob(let bytes), "text"): return String(decoding: bytes, as: UTF8.self)
        default: break
        }
        throw CopyError("\(column): a SQLite value \(value) does not fit PostgreSQL's \(type)")
    }

    /// `yyyy-MM-dd HH:mm:ss.SSS` from how GRDB and wsx write times (with or without a fraction,
    /// `T` or space, `Z` or nothing), the fraction cut to milliseconds.
    static func time(_ text: String) -> String? {
        var characters = Array(text)
        if characters.last == "Z" { characters.removeLast() }
        guard characters.count >= 19, characters[4] == "-", characters[7] == "-", characters[10] == " " || characters[10] == "T",
              characters[13] == ":", characters[16] == ":" else { return nil }
        characters[10] = " "
        var fraction = ""
        if characters.count > 19 {
            guard characters[19] == ".", characters.count > 20, characters[20...].allSatisfy(\.isNumber) else { return nil }
            fraction = String(characters[20...].prefix(3))
        }
        return String(characters[0..<19]) + "." + fraction.padding(toLength: 3, withPad: "0", startingAt: 0)
    }
}
