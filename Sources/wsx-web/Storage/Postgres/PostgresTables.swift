import Foundation
import Logging
import PostgresNIO
import Synchronization

/// The tables of wsx's schema, as PostgreSQL's catalog lists them, and what a statement touches:
/// the regions of PostgreSQL's caches (`ReadRegion`), which have no authorizer to learn them
/// from as SQLite's do.
///
/// A statement reads or writes the tables it names (every word of its SQL that is a table's
/// name: a column named like a table only makes a cache read again). A write reaches further
/// than it names: the tables its triggers' functions name (an unread count kept by a trigger on
/// `messages`), and the tables whose foreign keys cascade from it (a deleted room's messages),
/// followed to the end. Both come from the catalog when a node opens the database, so a trigger
/// or a key added by a later schema step is followed without a list kept by hand.
final class PostgresTables: Sendable {
    /// Every table's name.
    let names: Set<String>
    /// The tables a change to each table changes besides itself, followed to the end.
    private let reach: [String: Set<String>]
    /// The tables each statement names, and what it changes in a write, by its SQL (statements are
    /// few and fixed: values are bound). Every statement of every transaction asks.
    private let named = Mutex<[String: Set<String>]>([:])
    private let changes = Mutex<[String: Set<String>?]>([:])

    init(names: Set<String>, triggers: [(table: String, body: String)], cascades: [(parent: String, child: String)]) {
        self.names = names
        var direct: [String: Set<String>] = [:]
        for trigger in triggers { direct[trigger.table, default: []].formUnion(Self.words(of: trigger.body).intersection(names)) }
        for key in cascades { direct[key.parent, default: []].insert(key.child) }
        var reach: [String: Set<String>] = [:]
        for table in names {
            var seen: Set<String> = [], next = direct[table] ?? []
            while let found = next.popFirst() {
                if seen.insert(found).inserted { next.formUnion((direct[found] ?? []).subtracting(seen)) }
            }
            reach[table] = seen
        }
        self.reach = reach
    }

    /// The tables of the schema `connection` sees now, with its triggers and cascading keys.
    static func load(_ connection: PostgresConnection, logger: Logger) async throws -> PostgresTables {
        let names = try await connection.query("""
            SELECT c.relname::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE c.relkind IN ('r', 'p') AND n.nspname = current_schema()
            """, logger: logger).collect().map { try $0.decode(String.self) }
        let triggers = try await connection.query("""
            SELECT c.relname::text, p.prosrc FROM pg_trigger t
            JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
            JOIN pg_proc p ON p.oid = t.tgfoid
            WHERE NOT t.tgisinternal AND n.nspname = current_schema()
            """, logger: logger).collect().map { try $0.decode((String, String).self) }
        let cascades = try await connection.query("""
            SELECT parent.relname::text, child.relname::text FROM pg_constraint k
            JOIN pg_class child ON child.oid = k.conrelid JOIN pg_class parent ON parent.oid = k.confrelid
            JOIN pg_namespace n ON n.oid = child.relnamespace
            WHERE k.contype = 'f' AND n.nspname = current_schema()
              AND (k.confdeltype IN ('c', 'n', 'd') OR k.confupdtype IN ('c', 'n', 'd'))
            """, logger: logger).collect().map { try $0.decode((String, String).self) }
        return PostgresTables(names: Set(names), triggers: triggers.map { (table: $0.0, body: $0.1) },
                              cascades: cascades.map { (parent: $0.0, child: $0.1) })
    }

    /// The tables `sql` names.
    func named(in sql: String) -> Set<String> {
        if let known = named.withLock({ $0[sql] }) { return known }
        let found = Self.words(of: sql).intersection(names)
        named.withLock { known in
            // Statements are fixed texts; a bound on them keeps a surprise from growing memory.
            if known.count >= 4096 { known = [:] }
            known[sql] = found
        }
        return found
    }

    /// What a statement run in a write transaction may change: nothing for a read, the tables it
    /// names and everything they reach for a change, nil (every table) for one whose kind is not
    /// known (a schema change).
    func changed(by sql: String) -> Set<String>? {
        if let known = changes.withLock({ $0[sql] }) { return known }
        let found = changedUncached(by: sql)
        changes.withLock { known in
            if known.count >= 4096 { known = [:] }
            known[sql] = .some(found)
        }
        return found
    }

    private func changedUncached(by sql: String) -> Set<String>? {
        switch Self.firstWord(of: sql) {
        case "select", "begin", "commit", "rollback", "savepoint", "release", "set", "show", "listen", "unlisten":
            return []
        case "insert", "update", "delete", "with", "merge", "truncate":
            return reached(from: named(in: sql))
        default:
            return nil
        }
    }

    /// `tables` and every table a change to them changes (triggers, cascading keys).
    func reached(from tables: Set<String>) -> Set<String> {
        tables.reduce(into: tables) { all, table in all.formUnion(reach[table] ?? []) }
    }

    /// The lowercased identifiers of `sql` (words of letters, digits and underscores).
    private static func words(of sql: String) -> Set<String> {
        var words: Set<String> = [], word = ""
        for scalar in sql.unicodeScalars {
            if scalar == "_" || (scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar))) {
                word.unicodeScalars.append(scalar)
            } else if !word.isEmpty {
                words.insert(word.lowercased())
                word = ""
            }
        }
        if !word.isEmpty { words.insert(word.lowercased()) }
        return words
    }

    private static func firstWord(of sql: String) -> String {
        String(sql.drop { $0.isWhitespace || $0 == "(" }.prefix { $0.isLetter }).lowercased()
    }
}
