extension AppDatabase {
    /// Runs `body`, work that must happen on one node at a time (`name` tells the kinds apart),
    /// and answers its value; nil, without running it, when another node on the same PostgreSQL
    /// database is doing that work now. On SQLite one server owns the data folder, so it always runs.
    func onOneNode<T: Sendable>(_ name: String, _ body: () async throws -> T) async throws -> T? {
        guard let postgres else { return try await body() }
        return try await PostgresChoreLock.whileHeld(name, connector: postgres.connector, body)
    }
}
