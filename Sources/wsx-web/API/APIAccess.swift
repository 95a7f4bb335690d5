import Foundation
import Hummingbird

/// Who is calling `/v1`, and the workspace and rows their request names by opaque id.
struct APIAccess: Sendable {
    let sessions: AppSessions
    let workspaces: WorkspaceService
    let database: AppDatabase

    /// The signed-in caller (`E02`, `E05` otherwise).
    func caller(_ request: Request) async throws -> User {
        try await sessions.account(authorization: request.headers[.authorization]).user
    }

    /// The row of `table` the path parameter `name` names by its opaque id; `E13` for none.
    func row(_ context: AppRequestContext, _ name: String, in table: PublicTable) async throws -> Int64 {
        let publicId = try context.parameters.require(name)
        guard publicId.count <= 64, let id = try await database.queryOffLoop({ tx in try tx.publicIds.id(of: publicId, in: table) })
        else { throw APIError.notFound }
        return id
    }

    /// The caller and their membership of the workspace the path names (`{workspace}`); a
    /// workspace they are not in is `E13`, as one that does not exist.
    func workspace(_ request: Request, _ context: AppRequestContext) async throws -> (caller: User, access: WorkspaceAccess) {
        let caller = try await self.caller(request)
        let id = try await row(context, "workspace", in: .workspaces)
        do {
            return (caller, try await workspaces.access(workspaceId: id, userId: caller.id!))
        } catch let error as AppError where error.status == .notFound || error.status == .forbidden {
            throw APIError.notFound
        }
    }

    /// `rows` as `/v1` shows them, read with the opaque ids and files they name in one read.
    func present<Value: Sendable>(_ wanted: @escaping @Sendable (inout APIIdBook.Wanted, any StoreTransaction) throws -> Void,
                                  _ make: @escaping @Sendable (APIIdBook, any StoreTransaction) throws -> Value) async throws -> Value {
        try await database.queryOffLoop { tx in
            var list = APIIdBook.Wanted()
            try wanted(&list, tx)
            return try make(APIIdBook.load(tx, list), tx)
        }
    }
}
