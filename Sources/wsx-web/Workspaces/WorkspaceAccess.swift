import Foundation
import HTTPTypes
import Views

/// A signed-in person's standing in one workspace, found through their membership: every
/// `/w/{wid}/…` route starts here, so a stranger gets a 404 and there is no check to forget.
struct WorkspaceAccess: Sendable {
    let workspace: Workspace
    let role: WorkspaceRole
    let userId: Int64

    var workspaceId: Int64 { workspace.id! }
    var isOwner: Bool { role == .owner }

    /// Throws a 403 page unless the person owns the workspace.
    func requireOwner() throws {
        guard isOwner else { throw AppError.forbidden("error_owner_only") }
    }

    /// The workspace as `userId` may see it, or a 404.
    static func find(_ tx: any StoreTransaction, workspaceId: Int64, userId: Int64) throws -> WorkspaceAccess {
        guard let access = try tx.workspaces.access(workspaceId: workspaceId, userId: userId) else { throw AppError.notFound }
        return access
    }
}

/// A rule of the workspace that refuses the request in its current state ("transfer ownership
/// before leaving"): a 409 page with the message, nothing changed.
extension AppError {
    static func conflict(_ messageKey: String) -> AppError { AppError(status: .conflict, messageKey: messageKey) }
}

/// Names: trimmed, NFC, no control characters, within a length; unique by a lowercased key.
enum NameRules {
    static let workspaceName = TextLimit(characters: 50)
    static let channelName = TextLimit(characters: 30)
    static let description = TextLimit(characters: 500)

    static func key(_ name: String) -> String { name.lowercased() }

    /// The name and description as stored (trimmed, NFC, no control characters), or
    /// `FormProblems` saying what is wrong with them.
    static func cleaned(name rawName: String, description rawDescription: String,
                        allowed: TextLimit) throws -> (name: String, description: String) {
        let name = rawName.cleanedLine, description = rawDescription.cleanedText
        var problems = FormProblems()
        check(name: name, allowed: allowed, description: description, into: &problems)
        try problems.throwIfAny()
        return (name, description)
    }

    private static func check(name: String, allowed: TextLimit, description: String, into problems: inout FormProblems) {
        let nameKey = allowed == workspaceName ? "error_workspace_name_length" : "error_channel_name_length"
        if name.isEmpty { problems.add(.name, nameKey) }
        problems.check(name, fits: allowed, .name, tooLongKey: nameKey)
        problems.check(description, fits: Self.description, .description, tooLongKey: "error_description_long")
    }
}
