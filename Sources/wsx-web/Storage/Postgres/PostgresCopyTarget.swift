import Foundation
import PostgresNIO

/// The PostgreSQL database `wsx-web copy` fills, through one session inside one transaction:
/// what its tables are, rows in as text cast to each column's type, and the same rows read
/// back in the text the copy's checksums compare.
struct PostgresCopyTarget {
    let session: PostgresSession

    /// A column: its name, its type (`udt_name`: int8, text, bool, timestamptz, bytea…), and
    /// whether it takes NULL.
    struct Column: Sendable, Equatable {
        let name: String
        let type: String
        let nullable: Bool
    }

    /// A single-column foreign key.
    struct ForeignKey: Sendable, Equatable {
        let table: String
        let column: String
        let references: String
    }

    /// Every table of the schema, with its columns in order.
    func tables() throws -> [String: [Column]] {
        var tables: [String: [Column]] = [:]
        for row in try session.run("""
            SELECT table_name::text, column_name::text, udt_name::text, is_nullable::text FROM information_schema.columns
            WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position
            """) {
            let (table, column, type, nullable) = try row.decode((String, String, String, String).self)
            tables[table, default: []].append(Column(name: column, type: type, nullable: nullable == "YES"))
        }
        return tables
    }

    func foreignKeys() throws -> [ForeignKey] {
        try session.run("""
            SELECT source.relname::text, attribute.attname::text, target.relname::text
            FROM pg_constraint
            JOIN pg_class source ON source.oid = pg_constraint.conrelid
            JOIN pg_class target ON target.oid = pg_constraint.confrelid
            JOIN pg_namespace ON pg_namespace.oid = source.relnamespace AND pg_namespace.nspname = current_schema()
            JOIN pg_attribute attribute ON attribute.attrelid = source.oid AND attribute.attnum = pg_constraint.conkey[1]
            WHERE pg_constraint.contype = 'f' AND array_length(pg_constraint.conkey, 1) = 1
            """).map { row in
            let (table, column, references) = try row.decode((String, String, String).self)
            return ForeignKey(table: table, column: column, references: references)
        }
    }

    func count(of table: String) throws -> Int {
        try session.run(PostgresQuery(unsafeSQL: "SELECT COUNT(*) FROM \(Self.quoted(table))")).first?.decode(Int.self) ?? 0
    }

    /// Empties a table a fresh schema filled (its default rows give way to the team's).
    func empty(_ table: String) throws {
        try session.run(PostgresQuery(unsafeSQL: "DELETE FROM \(Self.quoted(table))"))
    }

    /// The table's own triggers (unread counters kept by inserts) off while rows arrive whole, and on again.
    func triggers(on table: String, enabled: Bool) throws {
        try session.run(PostgresQuery(unsafeSQL: "ALTER TABLE \(Self.quoted(table)) \(enabled ? "ENABLE" : "DISABLE") TRIGGER USER"))
    }

    /// Inserts rows of text (nil: NULL), each cast to its column's type.
    func insert(_ table: String, columns: [Column], rows: [[String?]]) throws {
        guard !rows.isEmpty else { return }
        var bindings = PostgresBindings(capacity: rows.count * columns.count)
        var values: [String] = []
        values.reserveCapacity(rows.count)
        for row in rows {
            var cells: [String] = []
            for (column, text) in zip(columns, row) {
                if let text {
                    bindings.append(Self.input(text, type: column.type))
                    cells.append("$\(bindings.count)::\(column.type)")
                } else {
                    cells.append("NULL")
                }
            }
            values.append("(" + cells.joined(separator: ", ") + ")")
        }
        let names = columns.map { Self.quoted($0.name) }.joined(separator: ", ")
        try session.run(PostgresQuery(unsafeSQL: "INSERT INTO \(Self.quoted(table)) (\(names)) VALUES \(values.joined(separator: ", "))",
                                      binds: bindings))
    }

    /// Sets one column of rows already in (a foreign key that had to wait for its table).
    func update(_ table: String, column: Column, byId values: [(id: String, value: String)]) throws {
        for (id, value) in values {
            var bindings = PostgresBindings()
            bindings.append(Self.input(value, type: column.type))
            bindings.append(id)
            try session.run(PostgresQuery(unsafeSQL: "UPDATE \(Self.quoted(table)) SET \(Self.quoted(column.name)) = $1::\(column.type) WHERE id = $2::int8",
                                          binds: bindings))
        }
    }

    /// Moves the table's id sequence past the ids copied in, so the next row made gets a new one.
    func advanceIds(of table: String) throws {
        try session.run(PostgresQuery(unsafeSQL: """
            SELECT setval(pg_get_serial_sequence('\(table)', 'id'), COALESCE((SELECT MAX(id) FROM \(Self.quoted(table))), 0) + 1, false)
            WHERE pg_get_serial_sequence('\(table)', 'id') IS NOT NULL
            """))
    }

    /// The event counter past the newest event copied in (the next event's id follows it).
    func advanceEventCounter() throws {
        try session.run("UPDATE event_counter SET last_id = (SELECT COALESCE(MAX(id), 0) FROM events)")
    }

    /// The search index of every message not deleted, from `text` of each (id, room, body).
    func indexMessages(_ text: (String) -> String) throws -> Int {
        let search = PostgresSearchStore(session: session)
        var count = 0
        for row in try session.run("SELECT id, room_id, body FROM messages WHERE deleted_at IS NULL ORDER BY id") {
            let (id, room, body) = try row.decode((Int64, Int64, String).self)
            try search.index(messageId: id, roomId: room, text: text(body))
            count += 1
        }
        return count
    }

    /// A node secret, the same as the data folder's file held.
    func keepSecret(_ name: String, _ value: Data) throws {
        try session.run("""
            INSERT INTO node_secrets (name, value) VALUES (\(name), \(value)) ON CONFLICT (name) DO UPDATE SET value = excluded.value
            """)
    }

    /// Every row of the table's columns as the checksum reads them: integers in decimal,
    /// booleans 1 or 0, times `yyyy-MM-dd HH:mm:ss.SSS` in UTC, bytes in hex, text as it is.
    func texts(of table: String, columns: [Column], _ body: ([String?]) -> Void) throws {
        let list = columns.map { column -> String in
            let name = Self.quoted(column.name)
            return switch column.type {
            case "bool": "CASE WHEN \(name) IS NULL THEN NULL WHEN \(name) THEN '1' ELSE '0' END"
            case "timestamptz": "to_char(\(name) AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS')"
            case "bytea": "encode(\(name), 'hex')"
            default: "\(name)::text"
            }
        }.joined(separator: ", ")
        for row in try session.run(PostgresQuery(unsafeSQL: "SELECT \(list) FROM \(Self.quoted(table))")) {
            var cells: [String?] = []
            cells.reserveCapacity(columns.count)
            for cell in row { cells.append(try cell.decode(String?.self)) }
            body(cells)
        }
    }

    /// A checksum text as the column's type takes it in: times in UTC, bytes as `\x` hex.
    private static func input(_ text: String, type: String) -> String {
        switch type {
        case "timestamptz": text + "+00"
        case "bytea": "\\x" + text
        default: text
        }
    }

    static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

extension PostgresCopyTarget {
    /// What PostgreSQL said when a statement of the copy failed (its message, detail and
    /// code; never the statement's values, which hold password hashes and secrets), or nil
    /// for an error of another kind.
    static func refusal(_ error: any Error) -> String? {
        guard let error = error as? PSQLError else { return nil }
        guard let info = error.serverInfo else { return "PostgreSQL: \(error.code)" }
        let parts = [info[.message], info[.detail].map { "(\($0))" }, info[.sqlState].map { "[\($0)]" }].compactMap { $0 }
        return "PostgreSQL: " + parts.joined(separator: " ")
    }
}
