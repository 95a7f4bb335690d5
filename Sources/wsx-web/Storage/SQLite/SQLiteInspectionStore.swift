import Foundation
import GRDB

/// `InspectionStore` on SQLite, on a read-only transaction's connection.
struct SQLiteInspectionStore: InspectionStore {
    let db: Database

    func integer(_ sql: String, _ arguments: [any Sendable]) throws -> Int64 {
        try Int64.fetchOne(db, sql: sql, arguments: try Self.arguments(arguments)) ?? 0
    }

    func rows(_ sql: String, _ arguments: [any Sendable]) throws -> [[String]] {
        try Row.fetchAll(db, sql: sql, arguments: try Self.arguments(arguments)).map { row in
            row.databaseValues.map { value in
                switch value.storage {
                case .null: "NULL"
                case .int64(let number): String(number)
                case .double(let number): String(number)
                case .string(let text): text
                case .blob(let bytes): bytes.base64EncodedString()
                }
            }
        }
    }

    /// The values as SQLite binds them; anything else is a mistake of the caller.
    private static func arguments(_ values: [any Sendable]) throws -> StatementArguments {
        StatementArguments(try values.map { value -> (any DatabaseValueConvertible)? in
            guard let convertible = value as? any DatabaseValueConvertible else {
                throw DatabaseError(resultCode: .SQLITE_MISMATCH, message: "cannot bind \(type(of: value))")
            }
            return convertible
        })
    }
}
