import Foundation
import PostgresNIO

extension Room {
    /// The columns `init(postgres:)` reads, each qualified by `rooms.`.
    static let postgresColumns = """
        rooms.id, rooms.workspace_id, rooms.kind, rooms.name, rooms.name_key, rooms.description, rooms.owner_id,
        rooms.is_default, rooms.dm_key, rooms.cover_file_id, rooms.created_at, rooms.updated_at, rooms.visibility,
        rooms.archived_at
        """

    /// A room from a row whose first columns are `postgresColumns`, in their order.
    init(postgres row: PostgresRow) throws {
        let (id, workspaceId, kind, name, nameKey, description, ownerId, isDefault, dmKey, coverFileId, createdAt, updatedAt,
             visibility, archivedAt) = try row.decode((Int64, Int64, String, String, String, String, Int64?, Bool, String?, Int64?,
                                                       Date, Date, String, Date?).self)
        guard let kind = Kind(rawValue: kind), let visibility = Visibility(rawValue: visibility) else {
            throw PostgresUnknownValue(column: "rooms.kind/visibility", value: "\(kind)/\(visibility)")
        }
        self.init(id: id, workspaceId: workspaceId, kind: kind, name: name, nameKey: nameKey, description: description,
                  ownerId: ownerId, isDefault: isDefault, dmKey: dmKey, coverFileId: coverFileId, createdAt: createdAt,
                  updatedAt: updatedAt, visibility: visibility, archivedAt: archivedAt)
    }
}

extension Workspace {
    /// The columns `init(postgres:)` reads, each qualified by `workspaces.`.
    static let postgresColumns = """
        workspaces.id, workspaces.name, workspaces.name_key, workspaces.description, workspaces.owner_id,
        workspaces.cover_file_id, workspaces.created_at, workspaces.updated_at
        """

    /// A workspace from a row whose first columns are `postgresColumns`, in their order.
    init(postgres row: PostgresRow) throws {
        let (id, name, nameKey, description, ownerId, coverFileId, createdAt, updatedAt) =
            try row.decode((Int64, String, String, String, Int64, Int64?, Date, Date).self)
        self.init(id: id, name: name, nameKey: nameKey, description: description, ownerId: ownerId, coverFileId: coverFileId,
                  createdAt: createdAt, updatedAt: updatedAt)
    }
}

/// A value in the database that no case of its Swift type names: a row written by a newer
/// wsx-web, or by hand.
struct PostgresUnknownValue: Error, CustomStringConvertible {
    let column: String
    let value: String

    var description: String { "unknown value \(value) in \(column)" }
}
