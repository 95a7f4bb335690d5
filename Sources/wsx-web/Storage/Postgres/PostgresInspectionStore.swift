import Foundation
import NIOCore
import PostgresNIO

/// `InspectionStore` on PostgreSQL: the portable `SELECT`'s `?` become `$1`, `$2`, …, and each
/// cell is given as text the way SQLite's store gives it (booleans as 1 and 0, dates as GRDB
/// stores them, bytes in Base64), so a check reads the same on both backends.
struct PostgresInspectionStore: InspectionStore {
    let session: PostgresSession

    func integer(_ sql: String, _ arguments: [any Sendable]) throws -> Int64 {
        guard let cell = try session.run(try Self.query(sql, arguments)).first?.makeRandomAccess().first else { return 0 }
        return Int64(try Self.text(cell) ?? "0") ?? 0
    }

    func rows(_ sql: String, _ arguments: [any Sendable]) throws -> [[String]] {
        try session.run(try Self.query(sql, arguments)).map { row in
            try row.makeRandomAccess().map { try Self.text($0) ?? "NULL" }
        }
    }

    /// `sql` with its `?` numbered (those inside quoted text and names left alone), bound to
    /// `arguments`.
    static func query(_ sql: String, _ arguments: [any Sendable]) throws -> PostgresQuery {
        var numbered = ""
        var quote: Character?
        var count = 0
        for character in sql {
            if let open = quote {
                if character == open { quote = nil }
                numbered.append(character)
            } else if character == "'" || character == "\"" {
                quote = character
                numbered.append(character)
            } else if character == "?" {
                count += 1
                numbered += "$\(count)"
            } else {
                numbered.append(character)
            }
        }
        guard count == arguments.count else { throw InspectionArgumentMismatch(detail: "\(count) parameters, \(arguments.count) arguments") }
        var bindings = PostgresBindings(capacity: arguments.count)
        for argument in arguments {
            switch argument {
            case let value as Int64: bindings.append(value)
            case let value as Int: bindings.append(Int64(value))
            case let value as String: bindings.append(value)
            case let value as Date: bindings.append(value)
            case let value as Bool: bindings.append(value)
            case let value as Double: bindings.append(value)
            default: throw InspectionArgumentMismatch(detail: "cannot bind \(type(of: argument))")
            }
        }
        return PostgresQuery(unsafeSQL: numbered, binds: bindings)
    }

    /// One cell as SQLite's store writes it; nil for NULL.
    private static func text(_ cell: PostgresCell) throws -> String? {
        guard cell.bytes != nil else { return nil }
        switch cell.dataType {
        case .int2, .int4, .int8: return String(try cell.decode(Int64.self))
        case .float4, .float8: return String(try cell.decode(Double.self))
        case .bool: return try cell.decode(Bool.self) ? "1" : "0"
        case .timestamptz, .timestamp: return Timestamps.database(try cell.decode(Date.self))
        case .bytea: return Data(try cell.decode(ByteBuffer.self).readableBytesView).base64EncodedString()
        case .jsonb:
            // Binary JSONB is a version byte, then the JSON text.
            var bytes = try cell.decode(ByteBuffer.self)
            bytes.moveReaderIndex(forwardBy: 1)
            return bytes.readString(length: bytes.readableBytes)
        case .json: return String(buffer: try cell.decode(ByteBuffer.self))
        case .numeric: return try cell.decode(String.self)
        default: return try cell.decode(String.self)
        }
    }
}

/// An inspection's parameters and arguments do not match, or an argument has no PostgreSQL type.
struct InspectionArgumentMismatch: Error, CustomStringConvertible {
    let detail: String
    var description: String { "inspection query: \(detail)" }
}
