import Hummingbird
import Views

/// What every `/w/{wid}/…` route does first: read the id and look the workspace up through the
/// signed-in person's membership (404 for anyone else, and for ids that are not numbers).
extension SignedInContext {
    func workspaceAccess(_ service: WorkspaceService) async throws -> WorkspaceAccess {
        guard let id = parameters.get("wid", as: Int64.self) else { throw AppError.notFound }
        return try await service.access(workspaceId: id, userId: userId)
    }

    /// A numeric path parameter, or a 404.
    func id(_ name: String) throws -> Int64 {
        guard let id = parameters.get(name, as: Int64.self) else { throw AppError.notFound }
        return id
    }

    /// The posted form (empty when there was none).
    var form: FormData { visitor.form ?? FormData(fields: []) }

    /// Whether a destructive POST carries the confirmation of the confirm page.
    var isConfirmed: Bool { form["confirm"] == "yes" }

    var strings: Strings { visitor.strings }
}
