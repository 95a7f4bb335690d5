import Foundation
import Hummingbird
import Uploads
import Views

/// `/v1`'s workspaces (`../shared/APP-API.md` §3.2), through the same services as the web's
/// pages: the same rules, audit lines and live events.
struct WorkspacesAPIController: Sendable {
    let access: APIAccess
    let workspaces: WorkspaceService
    let files: FileService
    let invitations: InvitationSender

    func addRoutes(to v1: APIRoutes) {
        v1.get("workspaces", use: list)
        v1.post("workspaces", use: create)
        v1.get("workspaces/:workspace", use: detail)
        v1.put("workspaces/:workspace", use: edit)
        v1.delete("workspaces/:workspace", use: delete)
        v1.get("workspaces/:workspace/members", use: members)
        v1.post("workspaces/:workspace/members", use: invite)
        v1.get("workspaces/:workspace/search", use: search)
        v1.put("workspaces/:workspace/transfer/ownership", use: transfer)
        v1.get("workspaces/:workspace/exit", use: exit)
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try await access.caller(request)
        return APIResponse.json(try await mine(caller.id!))
    }

    /// Makes a workspace (multipart `name`, `description`, `image`), paying its price in coins:
    /// `E21` when they do not suffice, `E12` for a name the caller already uses.
    @Sendable func create(_ request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try await access.caller(request)
        let form = try await APIForm.read(request, files: files, uploader: caller.id!, fileFields: ["image"])
        let name = form.fields["name"] ?? ""
        // The picture is made ready first: a refused one leaves nothing behind.
        let cover = try await form.picture(files)
        // The first channel is named in the app's language, as the web names it in its creator's
        // (Korean when the app says neither: the apps are Korean).
        let lang = Lang.preferred(byAcceptLanguage: request.headers[.acceptLanguage]) ?? .ko
        let made = try await workspaces.create(ownerId: caller.id!, name: name, description: form.fields["description"] ?? "",
                                               defaultChannelName: lang.strings["default_channel_name"], cover: cover)
        return APIResponse.json(try await present(made))
    }

    /// The workspace with the channels the caller may see and its members.
    @Sendable func detail(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (_, membership) = try await access.workspace(request, context)
        return APIResponse.json(try await detail(of: membership, matching: nil))
    }

    /// Edits name, description and picture (owner: `E14`); a form that changes nothing is `E12`.
    @Sendable func edit(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (caller, membership) = try await access.workspace(request, context)
        guard membership.isOwner else { throw APIError.ownerOnly }
        let form = try await APIForm.read(request, files: files, uploader: caller.id!, fileFields: ["image"])
        let current = membership.workspace
        let name = form.fields["name"] ?? current.name, description = form.fields["description"] ?? current.description
        if form.received.files.isEmpty, name.cleanedLine == current.name, description.cleanedLine == current.description {
            throw APIError.duplicate
        }
        let cover = try await form.picture(files)
        try await workspaces.update(membership, name: name, description: description, cover: cover)
        let updated = try await workspaces.access(workspaceId: membership.workspaceId, userId: caller.id!).workspace
        return APIResponse.json(try await present(updated))
    }

    @Sendable func delete(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (_, membership) = try await access.workspace(request, context)
        guard membership.isOwner else { throw APIError.ownerOnly }
        let hashes = try await files.hashes(in: .workspace(membership.workspaceId))
        try await workspaces.delete(membership)
        try await files.collectGarbage(candidates: hashes)
        return APIResponse.empty
    }

    @Sendable func members(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (_, membership) = try await access.workspace(request, context)
        let workspaceId = membership.workspaceId
        let members = try await access.present({ wanted, tx in
            for member in try tx.memberships.members(workspaceId: workspaceId) { wanted.add(member) }
        }, { book, tx in try tx.memberships.members(workspaceId: workspaceId).map { try APIMember($0, book: book) } })
        return APIResponse.json(members)
    }

    /// Invites `{email}` as the web's members page does (owner only, `E14`): the person still
    /// accepts. The apps expect the invitee back as a Member, so an address without an account
    /// is `E03` and nothing is sent; a member already there is `E12`; past the hourly allowance,
    /// or an address mailed minutes ago, `E98`.
    @Sendable func invite(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (caller, membership) = try await access.workspace(request, context)
        guard membership.isOwner else { throw APIError.ownerOnly }
        let email = try await APIFields.read(request).required("email").cleanedLine
        guard AccountRules.isPlausibleEmail(email) else { throw APIError.badRequest }
        let key = User.key(forEmail: email)
        guard let invitee = try await access.database.queryOffLoop({ tx in try tx.accounts.user(emailKey: key) }) else {
            // Counted as an invitation made: an owner cannot test more addresses for accounts
            // than they may invite in an hour.
            if case .proceed(let ticket) = await invitations.limits.beginInvitation(inviter: caller.id!, workspaceId: membership.workspaceId) {
                await invitations.limits.endInvitation(ticket, made: true)
                throw APIError.unknownAccount
            }
            throw APIError.tooManyCalls
        }
        let lang = Lang.preferred(byAcceptLanguage: request.headers[.acceptLanguage]) ?? .ko
        do {
            if case .mailedRecently = try await invitations.invite(membership, email: email, inviterNickname: caller.nickname, lang: lang) {
                throw APIError.tooManyCalls
            }
        } catch is InvitationSender.Throttled {
            throw APIError.tooManyCalls
        } catch let problems as FormProblems where problems.messages[.email] == "error_already_member" {
            throw APIError.duplicate
        }
        return APIResponse.json(try await access.present({ wanted, _ in wanted.add(invitee) },
                                                         { book, _ in try APIMember(invitee, book: book) }))
    }

    /// The channels and members whose names hold `keyword` (any part of it, any letter case;
    /// Korean too); an empty keyword is `E11`.
    @Sendable func search(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (_, membership) = try await access.workspace(request, context)
        let keyword = request.uri.queryParameters["keyword"].map { String($0).cleanedLine } ?? ""
        guard !keyword.isEmpty else { throw APIError.badRequest }
        return APIResponse.json(try await detail(of: membership, matching: keyword))
    }

    /// Hands the workspace to another member (`{owner_id}`; owner only, `E14`); a member
    /// unknown here is `E13`.
    @Sendable func transfer(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (caller, membership) = try await access.workspace(request, context)
        guard membership.isOwner else { throw APIError.ownerOnly }
        let target = try await APIFields.read(request).required("owner_id")
        guard let newOwner = try await access.database.queryOffLoop({ tx in try tx.publicIds.id(of: target, in: .users) }),
              try await access.database.queryOffLoop({ tx in try tx.workspaces.isMember(workspaceId: membership.workspaceId, userId: newOwner) })
        else { throw APIError.notFound }
        guard newOwner != caller.id else { throw APIError.badRequest }
        try await workspaces.transfer(membership, to: newOwner)
        let updated = try await workspaces.access(workspaceId: membership.workspaceId, userId: caller.id!).workspace
        return APIResponse.json(try await present(updated))
    }

    /// Leaves the workspace; its owner, or the owner of one of its channels, cannot (`E15`).
    /// Answers the workspaces left.
    @Sendable func exit(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (caller, membership) = try await access.workspace(request, context)
        do {
            try await workspaces.leave(membership)
        } catch let error as AppError where error.status == .conflict {
            throw APIError.ownerMustTransfer
        }
        return APIResponse.json(try await mine(caller.id!))
    }

    /// The caller's workspaces, by name.
    private func mine(_ userId: Int64) async throws -> [APIWorkspace] {
        try await access.present({ wanted, tx in
            for workspace in try tx.workspaces.workspaces(of: userId) { wanted.add(workspace) }
        }, { book, tx in try tx.workspaces.workspaces(of: userId).map { try APIWorkspace($0, book: book) } })
    }

    private func present(_ workspace: Workspace) async throws -> APIWorkspace {
        try await access.present({ wanted, _ in wanted.add(workspace) }, { book, _ in try APIWorkspace(workspace, book: book) })
    }

    /// The workspace with the channels the caller may see and its members; with `keyword`, only
    /// those whose names hold it.
    private func detail(of membership: WorkspaceAccess, matching keyword: String?) async throws -> APIWorkspace {
        let workspace = membership.workspace, userId = membership.userId
        let needle = keyword.map { $0.lowercased() }
        @Sendable func holds(_ name: String) -> Bool { needle.map { name.lowercased().contains($0) } ?? true }
        @Sendable func read(_ tx: any StoreTransaction) throws -> (rooms: [Room], members: [MembershipService.Member]) {
            let rooms = try ChannelsAPIController.rooms(tx, workspaceId: workspace.id!, userId: userId, joinedOnly: false)
                .filter { holds($0.name) }
            let members = try tx.memberships.members(workspaceId: workspace.id!).filter { holds($0.nickname) || holds($0.email) }
            return (rooms, members)
        }
        return try await access.present({ wanted, tx in
            wanted.add(workspace)
            let (rooms, members) = try read(tx)
            for room in rooms { wanted.add(room) }
            for member in members { wanted.add(member) }
        }, { book, tx in
            let (rooms, members) = try read(tx)
            var shown = try APIWorkspace(workspace, book: book)
            shown.channels = try rooms.map { try APIChannel($0, owner: workspace.ownerId, book: book) }
            shown.members = try members.map { try APIMember($0, book: book) }
            return shown
        })
    }
}
