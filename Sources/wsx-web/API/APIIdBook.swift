import Foundation

/// The opaque ids and files the rows of one `/v1` answer name, read together in the answer's
/// read transaction (one query per table, never one per row).
struct APIIdBook: Sendable {
    private var ids: [PublicTable: [Int64: String]] = [:]
    private var files: [Int64: StoredFile] = [:]

    /// What to read: the ids of each table whose opaque ids the answer shows.
    struct Wanted {
        var ids: [PublicTable: Set<Int64>] = [:]

        mutating func add(_ table: PublicTable, _ id: Int64?) {
            if let id { ids[table, default: []].insert(id) }
        }

        mutating func add(_ user: User) {
            add(.users, user.id)
            add(.files, user.avatarFileId)
        }

        mutating func add(_ member: MembershipService.Member) {
            add(.users, member.id)
            add(.files, member.avatarFileId)
        }

        mutating func add(_ workspace: Workspace) {
            add(.workspaces, workspace.id)
            add(.users, workspace.ownerId)
            add(.files, workspace.coverFileId)
        }

        mutating func add(_ room: Room) {
            add(.rooms, room.id)
            add(.users, room.ownerId)
            add(.files, room.coverFileId)
        }
    }

    /// Reads what `wanted` names, in `tx`.
    static func load(_ tx: any StoreTransaction, _ wanted: Wanted) throws -> APIIdBook {
        var book = APIIdBook()
        for (table, ids) in wanted.ids where !ids.isEmpty {
            book.ids[table] = try tx.publicIds.publicIds(of: Array(ids), in: table)
        }
        if let fileIds = wanted.ids[.files], !fileIds.isEmpty { book.files = try tx.files.files(ids: Array(fileIds)) }
        return book
    }

    /// The opaque id of row `id` of `table`. A row read in the same transaction has one; a
    /// missing one is the server's fault.
    func id(_ table: PublicTable, _ id: Int64) throws -> String {
        guard let found = ids[table]?[id] else { throw APIError.serverFault }
        return found
    }

    /// Where `/v1` serves the file `id` (`APIStaticPaths`), nil without one.
    func path(of id: Int64?, in bucket: APIStaticPaths.Bucket) -> String? {
        guard let id, let file = files[id], let publicId = ids[.files]?[id] else { return nil }
        return APIStaticPaths.path(of: file, publicId: publicId, in: bucket)
    }
}
