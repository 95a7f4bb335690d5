import PostgresNIO

/// Work that must run on one node at a time (the hourly sweep of events, sessions and unreferenced
/// files): each kind holds a PostgreSQL advisory lock of its own while it runs, on a connection
/// of its own, so closing it (or the node dying) lets the lock go. A node that finds the lock
/// taken skips its round: another node is doing the same work now, and the next round comes.
enum PostgresChoreLock {
    /// A chore's lock key: its name's first eight ASCII bytes, as the schema's lock is "wsxschm".
    static func key(_ name: String) -> Int64 {
        name.utf8.prefix(8).reduce(Int64(0)) { ($0 << 8) | Int64($1 & 0x7F) }
    }

    /// Runs `body` if no node holds the lock of `name` now, and answers its value; nil (and
    /// `body` not run) when another node holds it.
    static func whileHeld<T: Sendable>(_ name: String, connector: PostgresConnector, _ body: () async throws -> T) async throws -> T? {
        try await connector.withConnection { connection in
            let taken = try await connection.query("SELECT pg_try_advisory_lock(\(key(name)))", logger: connector.logger)
                .collect().first?.decode(Bool.self) ?? false
            guard taken else { return nil }
            // The connection's close (after the body, whatever it did) releases the lock.
            return try await body()
        }
    }
}
