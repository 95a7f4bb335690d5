import PostgresNIO

extension DuplicateKey {
    /// What `body` answers, with PostgreSQL's unique violation (SQLSTATE 23505) thrown as
    /// `DuplicateKey`. The failed statement has aborted the transaction: the caller's error
    /// rolls it back, as on SQLite.
    static func mappedOnPostgres<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            throw DuplicateKey()
        }
    }
}
