import Foundation

/// One cell of a table as `wsx-web copy` carries it from SQLite to PostgreSQL: SQLite's own
/// storage classes, neither database's types.
enum CopiedValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
}

/// What stops `wsx-web copy`, said so an operator can act on it.
struct CopyError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
