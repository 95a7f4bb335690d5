import GRDB
import Synchronization

/// What one cache of reads has read from the database, learned from the reads themselves, and
/// a number that goes up with every commit that changed it: while the number stays the same,
/// a read the cache keeps gives the same answer as a fresh one.
///
/// The region is the union of the `DatabaseRegion`s of the statements the cache's reads ran
/// (tables and columns, as SQLite's authorizer reports them when GRDB prepares a statement),
/// and the other caches those reads were answered from (`parts`): a page kept whole is as
/// fresh as every cache it was put together from. Nobody lists tables by hand, so a column a
/// query starts reading is watched from its first read on.
///
/// `RegionVersions`, the writer's one transaction observer, tells each region about every
/// kind of change a statement may make and counts the commits that made one it covers.
final class ReadRegion: Sendable {
    private struct State {
        var region = DatabaseRegion()
        /// The whole tables read on PostgreSQL (`StatementRegions.tables(of:)`).
        var tables: Set<String> = []
        /// The statements whose regions `region` holds, by their SQL.
        var statements: Set<String> = []
        /// The other caches this one's values were read through, by identity.
        var parts: [ReadRegion] = []
        /// Whether a kind of change touches `region`, as asked before (forgotten when it grows).
        var answers: [ChangeKind: Bool] = [:]
    }

    /// A name for logs and tests.
    let name: String
    /// Where the regions of statements are found, by their SQL.
    let statementRegions: StatementRegions
    private let state = Mutex(State())
    private let own = Atomic<UInt64>(0)
    /// The number (`RegionVersions.commits`) of the last commit that changed this region itself.
    private let changedAt = Atomic<UInt64>(0)
    private let hasParts = Atomic<Bool>(false)
    /// Whether the transaction in progress made a change the region covers; writer only.
    private let changed = Atomic<Bool>(false)
    /// Whether the region grew since the last commit: a transaction under way may have changed
    /// what it covers now before it was covered, so the next commit counts.
    private let grew = Atomic<Bool>(false)

    init(name: String, statementRegions: StatementRegions) {
        self.name = name
        self.statementRegions = statementRegions
    }

    /// The number of commits that changed this region or its parts. Only compared for equality:
    /// it is a sum, and it changes as well when a part is added.
    var version: UInt64 {
        let own = own.load(ordering: .acquiring)
        guard hasParts.load(ordering: .acquiring) else { return own }
        return state.withLock { $0.parts.reduce(own) { $0 &+ $1.version } }
    }

    /// The number (`RegionVersions.commits`) of the last commit that changed this region or its
    /// parts: a read transaction begun at or after it sees that change.
    var lastChange: UInt64 {
        let own = changedAt.load(ordering: .acquiring)
        guard hasParts.load(ordering: .acquiring) else { return own }
        return state.withLock { $0.parts.reduce(own) { max($0, $1.lastChange) } }
    }

    /// Whether `other` is this region or one of its parts, however deep.
    private func includes(_ other: ReadRegion) -> Bool {
        other === self || state.withLock { $0.parts }.contains { $0.includes(other) }
    }

    /// What the region covers now (without its parts).
    var region: DatabaseRegion { state.withLock { $0.region } }

    /// Adds what a read read: the statements it ran (by their SQL, whose regions
    /// `statementRegions` holds) and the caches it was answered from. Answers whether that
    /// reached something not watched before; the read's value must then not be kept, since a
    /// commit under way could have changed it unnoticed.
    func learn(statements: Set<String>, parts: [ReadRegion]) -> Bool {
        let unknown = state.withLock { state in statements.filter { !state.statements.contains($0) } }
        guard !unknown.isEmpty || !parts.isEmpty else { return false }
        var read = DatabaseRegion(), tables: Set<String> = []
        for sql in unknown {
            if let named = statementRegions.tables(of: sql) {
                tables.formUnion(named)
            } else {
                read.formUnion(statementRegions.region(of: sql) ?? .fullDatabase)
            }
        }
        return learn(read, tables: tables, parts: parts, statements: unknown)
    }

    /// Adds `read` and `tables` to the region, with `parts`; answers whether that was new to it.
    func learn(_ read: DatabaseRegion, tables: Set<String> = [], parts: [ReadRegion] = [], statements: Set<String> = []) -> Bool {
        // A part that holds this region would make its version count itself forever.
        let known = state.withLock { $0.parts }
        let added = parts.filter { part in !known.contains { $0 === part } && !part.includes(self) }
        let grown = state.withLock { state -> Bool in
            var grown = false
            for part in added where !state.parts.contains(where: { $0 === part }) {
                state.parts.append(part)
                grown = true
            }
            state.statements.formUnion(statements)
            if !tables.isSubset(of: state.tables) {
                state.tables.formUnion(tables)
                grown = true
            }
            if !read.isEmpty {
                let union = state.region.union(read)
                if union != state.region {
                    state.region = union
                    state.answers = [:]
                    grown = true
                }
            }
            return grown
        }
        if grown {
            if !added.isEmpty { hasParts.store(true, ordering: .releasing) }
            grew.store(true, ordering: .releasing)
        }
        return grown
    }

    /// A statement of the transaction in progress may make `change`.
    func note(_ change: ChangeKind) {
        let touches = state.withLock { state -> Bool in
            if let known = state.answers[change] { return known }
            let answer = state.region.isModified(byEventsOfKind: change.kind)
            state.answers[change] = answer
            return answer
        }
        if touches { changed.store(true, ordering: .relaxed) }
    }

    /// The transaction in progress committed, as commit number `commit`.
    func didCommit(_ commit: UInt64) {
        let counted = changed.exchange(false, ordering: .relaxed)
        if grew.exchange(false, ordering: .acquiringAndReleasing) || counted { count(commit) }
    }

    private func count(_ commit: UInt64) {
        changedAt.store(commit, ordering: .releasing)
        own.add(1, ordering: .releasing)
    }

    /// The transaction in progress was rolled back: what it did never happened.
    func didRollback() {
        changed.store(false, ordering: .relaxed)
    }

    /// A commit (any node's, on PostgreSQL) changed `tables`: counted when the region reads one
    /// of them, or grew since the last count (what it reads now may have changed unnoticed).
    func countChange(touching tables: Set<String>, commit: UInt64) {
        let touches = state.withLock { state in
            !state.tables.isDisjoint(with: tables) || tables.contains { state.region.isModified(byEventsOfKind: .insert(tableName: $0)) }
        }
        if grew.exchange(false, ordering: .acquiringAndReleasing) || touches { count(commit) }
    }

    /// Something changed that no statement of this process said (another process wrote).
    func countOutsideChange(commit: UInt64) {
        count(commit)
    }
}

/// One kind of change a statement may make, hashable so a region remembers its answer.
struct ChangeKind: Hashable, Sendable {
    let kind: DatabaseEventKind
    private let operation: UInt8
    private let table: String
    private let columns: Set<String>
    /// Hashed once: each statement's kinds are looked up by every region.
    private let hashed: Int

    init(_ kind: DatabaseEventKind) {
        self.kind = kind
        switch kind {
        case .insert(let table): (operation, self.table, columns) = (0, table, [])
        case .delete(let table): (operation, self.table, columns) = (1, table, [])
        case .update(let table, let columns): (operation, self.table, self.columns) = (2, table, columns)
        }
        var hasher = Hasher()
        hasher.combine(operation)
        hasher.combine(table)
        hasher.combine(columns)
        hashed = hasher.finalize()
    }

    static func == (lhs: ChangeKind, rhs: ChangeKind) -> Bool {
        lhs.hashed == rhs.hashed && lhs.operation == rhs.operation && lhs.table == rhs.table && lhs.columns == rhs.columns
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(hashed)
    }
}
