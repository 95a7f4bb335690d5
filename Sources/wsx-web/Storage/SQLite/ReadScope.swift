import GRDB
import GRDBSQLite
import Synchronization

/// Collects what one cached read (a kept page, a cache's value) depended on while it ran: the
/// statements it ran and the caches it was answered from. The read's cache then learns it
/// (`ReadRegion.learn`).
///
/// The scope of the read under way is a task-local value, so a cache answering from memory
/// deep inside a page's handler adds itself to the page's scope, and `AppDatabase.read`
/// records its statements into it, without any of them being passed the scope.
final class ReadScope: Sendable {
    @TaskLocal static var current: ReadScope?

    private struct State {
        var statements: Set<String> = []
        var parts: [ReadRegion] = []
    }

    private let state = Mutex(State())
    /// Where the regions of the statements recorded are kept.
    let statementRegions: StatementRegions

    /// A scope for a read that `region`'s cache will learn.
    init(for region: ReadRegion) {
        statementRegions = region.statementRegions
    }

    /// The read used a value kept by the cache of `region`.
    func include(_ region: ReadRegion) {
        state.withLock { state in
            if !state.parts.contains(where: { $0 === region }) { state.parts.append(region) }
        }
    }

    /// The read ran `statements` (their SQL).
    func add(_ statements: [String]) {
        guard !statements.isEmpty else { return }
        state.withLock { $0.statements.formUnion(statements) }
    }

    /// The read ran `sql` on PostgreSQL, which reads `tables`: PostgreSQL has no authorizer to
    /// say which columns, so the whole tables are the statement's region.
    func add(_ sql: String, reading tables: Set<String>) {
        statementRegions.know(sql, reads: tables)
        add([sql])
    }

    /// Teaches `region` what this read depended on; answers whether that was new to it.
    func teach(_ region: ReadRegion) -> Bool {
        let (statements, parts) = state.withLock { ($0.statements, $0.parts) }
        return region.learn(statements: statements, parts: parts)
    }

    /// Runs `block` on `db` as part of this scope (current on this thread too, which may not be
    /// the request's), adding the statements it ran.
    func record<T>(_ db: Database, _ block: (Database) throws -> T) throws -> T {
        try ReadScope.$current.withValue(self) {
            let (value, statements) = try recording(db) { try block(db) }
            add(statements)
            return value
        }
    }

    /// Runs `block` on `db`, answering its value and the SQL of the statements it ran there,
    /// whose regions `statementRegions` then holds. Nested recordings on one connection share
    /// its trace.
    func recording<T>(_ db: Database, _ block: () throws -> T) throws -> (T, [String]) {
        guard let connection = db.sqliteConnection else { return (try block(), []) }
        if let trace = StatementTrace.current, trace.connection == connection {
            let start = trace.statements.count
            let value = try block()
            let statements = Array(trace.statements[start...])
            try statementRegions.learn(statements, in: db)
            return (value, statements)
        }
        let trace = StatementTrace(connection: connection)
        let value: T
        do {
            trace.start()
            defer { trace.stop() }
            value = try StatementTrace.$current.withValue(trace) { try block() }
        }
        try statementRegions.learn(trace.statements, in: db)
        return (value, trace.statements)
    }
}

/// The SQL of the statements run on one SQLite connection while a `ReadScope` records (SQLite's
/// statement trace, read without copying or trimming beyond one string per statement); used on
/// that connection's thread only, inside one read.
final class StatementTrace: @unchecked Sendable {
    @TaskLocal static var current: StatementTrace?

    let connection: OpaquePointer
    private(set) var statements: [String] = []

    init(connection: OpaquePointer) {
        self.connection = connection
    }

    func start() {
        sqlite3_trace_v2(connection, UInt32(SQLITE_TRACE_STMT), { _, context, _, sql in
            guard let context, let sql else { return 0 }
            let text = sql.assumingMemoryBound(to: CChar.self)
            // Statements of triggers come as comments; reads run none.
            if text[0] == 45, text[1] == 45 { return 0 }
            Unmanaged<StatementTrace>.fromOpaque(context).takeUnretainedValue().statements.append(String(cString: text))
            return 0
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    func stop() {
        sqlite3_trace_v2(connection, 0, nil, nil)
    }

    /// Runs `block` leaving out of the trace the statements it ran: what they read is not
    /// something the read under way depends on.
    func unrecorded<T>(_ block: () throws -> T) rethrows -> T {
        let start = statements.count
        defer { statements.removeSubrange(start...) }
        return try block()
    }
}

/// The region each statement reads, by its SQL, as GRDB derives it when it prepares one; each
/// is prepared once per process for this.
final class StatementRegions: Sendable {
    private let regions = Mutex<[String: DatabaseRegion]>([:])
    private let tableSets = Mutex<[String: Set<String>]>([:])

    init() {}

    func region(of sql: String) -> DatabaseRegion? {
        regions.withLock { $0[sql] }
    }

    /// The tables a PostgreSQL statement reads, by its SQL (`know(_:reads:)`).
    func tables(of sql: String) -> Set<String>? {
        tableSets.withLock { $0[sql] }
    }

    /// Keeps `tables` as what the PostgreSQL statement `sql` reads (whole tables: PostgreSQL has
    /// no authorizer to say which columns).
    func know(_ sql: String, reads tables: Set<String>) {
        tableSets.withLock { known in if known[sql] == nil { known[sql] = tables } }
    }

    /// Derives the regions of the statements not known yet, on `db`.
    func learn(_ statements: [String], in db: Database) throws {
        let unknown = regions.withLock { known in statements.filter { known[$0] == nil } }
        for sql in Set(unknown) {
            let region = try db.makeStatement(sql: sql).databaseRegion
            regions.withLock { $0[sql] = region }
        }
    }
}
