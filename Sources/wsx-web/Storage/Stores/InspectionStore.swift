import Foundation

/// Reads that check what the data holds, for the test suites and operators' checks: a single
/// number or rows as text, from a portable `SELECT` (standard SQL with `?` parameters, no
/// SQLite-only functions or tables; a PostgreSQL store numbers the parameters `$1`, `$2`, …).
///
/// It never writes, and no request of the app goes through it: what the app reads and writes
/// has a store method named for it. Arguments are numbers, text, dates or booleans.
protocol InspectionStore {
    /// The first column of the first row as an integer (0 when there is no row or it is NULL).
    func integer(_ sql: String, _ arguments: [any Sendable]) throws -> Int64
    /// Every row, each column as text (NULL as "NULL"), columns in their order.
    func rows(_ sql: String, _ arguments: [any Sendable]) throws -> [[String]]
}
