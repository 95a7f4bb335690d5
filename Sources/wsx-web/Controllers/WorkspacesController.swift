import Hummingbird
import Views

/// Workspaces: the list and create form, a workspace's home, settings, deletion, leaving and
/// handing over. Destructive actions ask first: a POST without `confirm=yes` shows what will
/// happen; the confirm page posts again with it.
struct WorkspacesController: Sendable {
    let workspaces: WorkspaceService
    let channels: ChannelService
    let members: MembershipService
    let invitations: Invitations
    let accounts: AccountService
    let files: FileService
    let cookies: CookiePolicy
    let pages: Pages
    /// What the workspace's home lists.
    let home: WorkspaceHomeReader
    /// Homes as rendered, by what they show.
    let homeContents = KeptContents<HomeKey>()

    /// Everything a workspace's home shows. The rooms are the kept read's own array, so an
    /// unchanged home compares by identity; the hash takes ids and counts, not names (hashing
    /// Korean text normalises it).
    struct HomeKey: Hashable, Sendable {
        let workspaceId: Int64, name: String, description: String, isOwner: Bool, coverFileId: Int64?
        let rooms: [RoomSummary]
        let mentions: [Int]

        func hash(into hasher: inout Hasher) {
            hasher.combine(workspaceId)
            hasher.combine(isOwner)
            hasher.combine(coverFileId)
            hasher.combine(name.utf8.count)
            hasher.combine(rooms.count)
            for room in rooms {
                hasher.combine(room.id)
                hasher.combine(room.unread)
            }
            hasher.combine(mentions)
        }
    }

    func addRoutes(to group: RouterGroup<SignedInContext>) {
        group.get(Paths.workspaces.routerPath, use: list)
        group.post(Paths.workspaces.routerPath, use: create)
        group.get(Paths.workspace.routerPath, use: home)
        group.get(Paths.workspaceSettings.routerPath, use: settings)
        group.post(Paths.workspaceSettings.routerPath, use: update)
        group.post(Paths.deleteWorkspace.routerPath, use: delete)
        group.post(Paths.leaveWorkspace.routerPath, use: leave)
        group.post(Paths.transferWorkspace.routerPath, use: transfer)
    }

    @Sendable func list(_ request: Request, context: SignedInContext) async throws -> Response {
        try await showList(request, context, form: createForm(context, balance: context.user.coinBalance))
    }

    @Sendable func create(_ request: Request, context: SignedInContext) async throws -> Response {
        let name = context.form["name"] ?? "", description = context.form["description"] ?? ""
        let strings = context.strings
        do {
            let workspace = try await workspaces.create(ownerId: context.userId, name: name, description: description,
                                                        defaultChannelName: strings["default_channel_name"])
            return cookies.redirect(to: Paths.workspace(workspace.id!), flash: "workspace_created", for: request)
        } catch let problems as FormProblems {
            var form = createForm(context, balance: context.user.coinBalance)
            (form.name, form.description, form.errors) = (name.cleanedLine, description, FieldErrors(problems, strings))
            return try await showList(request, context, form: form, status: .unprocessableContent)
        } catch CoinError.insufficient(let balance, let needed) {
            var form = createForm(context, balance: balance)
            (form.name, form.description) = (name.cleanedLine, description)
            form.coinsMessage = strings.format("error_not_enough_coins", needed, balance)
            return try await showList(request, context, form: form, status: .init(code: 402))
        }
    }

    @Sendable func home(_ request: Request, context: SignedInContext) async throws -> Response {
        let access = try await context.workspaceAccess(workspaces)
        let (rooms, markers) = try await home.read(workspaceId: access.workspaceId, userId: context.userId)
        let key = HomeKey(workspaceId: access.workspaceId, name: access.workspace.name, description: access.workspace.description, isOwner: access.isOwner,
                          coverFileId: access.workspace.coverFileId, rooms: rooms, mentions: rooms.map { markers[$0.id]?.mentions ?? 0 })
        return try await pages.render(.workspaceHome, title: access.workspace.name, kept: homeContents, key: key,
                                      page: { Self.homePage(access, rooms: rooms, mentions: key.mentions) },
                                      request: request, context: context, place: .workspace(access.workspaceId),
                                      headers: RenderedPage.reusable)
    }

    /// A workspace's home: its rooms, channels first, then conversations with their last message.
    private static func homePage(_ access: WorkspaceAccess, rooms: [RoomSummary], mentions: [Int]) -> WorkspaceHomePage {
        let links = zip(rooms, mentions).map { room, mentions in
            var link = RoomLink(id: room.id, name: room.name, url: room.url, unread: room.unread, lastSnippet: room.lastSnippet,
                                lastTimestamp: room.lastAt.map(Timestamps.iso), lastTimeText: room.lastAt.map(Timestamps.utcText))
            link.avatarURL = room.avatarURL
            link.personId = room.personId
            link.status = room.status
            link.notify = room.ownNotify ?? room.defaultNotify
            link.isDirect = !room.isChannel
            link.mentions = mentions
            if let size = room.groupSize { (link.isGroup, link.initial) = (true, String(size)) }
            return link
        }
        var page = WorkspaceHomePage(id: access.workspaceId, name: access.workspace.name,
                                     description: access.workspace.description, isOwner: access.isOwner,
                                     channels: links.filter { link in rooms.contains { $0.id == link.id && $0.isChannel } },
                                     dms: links.filter { link in rooms.contains { $0.id == link.id && !$0.isChannel } })
        page.coverURL = access.workspace.coverFileId.map { Paths.thumbnail($0) }
        return page
    }

    @Sendable func settings(_ request: Request, context: SignedInContext) async throws -> Response {
        let access = try await context.workspaceAccess(workspaces)
        return try await showSettings(access, request, context)
    }

    @Sendable func update(_ request: Request, context: SignedInContext) async throws -> Response {
        let access = try await context.workspaceAccess(workspaces)
        try access.requireOwner()
        let (form, cover) = try await files.readPictureForm(request, visitor: context.visitor)
        let name = form["name"] ?? "", description = form["description"] ?? ""
        do {
            try await workspaces.update(access, name: name, description: description, cover: cover)
            if cover != nil { try await files.collectGarbage() }
            return cookies.redirect(to: Paths.workspaceSettings(access.workspaceId), flash: "workspace_saved", for: request)
        } catch let problems as FormProblems {
            return try await showSettings(access, request, context, name: name.cleanedLine, description: description,
                                          errors: FieldErrors(problems, context.strings), status: .unprocessableContent)
        }
    }

    @Sendable func delete(_ request: Request, context: SignedInContext) async throws -> Response {
        let access = try await context.workspaceAccess(workspaces)
        try access.requireOwner()
        guard context.isConfirmed else {
            let lost = try await workspaces.deletionSummary(access)
            let strings = context.strings
            let page = ConfirmPage(
                heading: strings.format("confirm_delete_workspace", access.workspace.name),
                consequences: [strings.format("confirm_lost_channels", lost.channels),
                               strings.format("confirm_lost_members", lost.members),
                               strings.format("confirm_lost_messages", lost.messages),
                               strings["confirm_cannot_undo"]],
                action: Paths.deleteWorkspace(access.workspaceId), button: strings["confirm_delete_submit"],
                cancelURL: Paths.workspaceSettings(access.workspaceId))
            return try await confirm(page, request, context, access)
        }
        let hashes = try await files.hashes(in: .workspace(access.workspaceId))
        try await workspaces.delete(access)
        try await files.collectGarbage(candidates: hashes)
        return cookies.redirect(to: Paths.workspaces(), flash: "workspace_deleted", for: request)
    }

    @Sendable func leave(_ request: Request, context: SignedInContext) async throws -> Response {
        let access = try await context.workspaceAccess(workspaces)
        if access.isOwner { throw AppError.conflict("error_owner_cannot_leave") }
        guard context.isConfirmed else {
            let strings = context.strings
            let page = ConfirmPage(heading: strings.format("confirm_leave_workspace", access.workspace.name),
                                   consequences: [strings["confirm_leave_consequence"]],
                                   action: Paths.leaveWorkspace(access.workspaceId), button: strings["confirm_leave_submit"],
                                   cancelURL: Paths.workspace(access.workspaceId))
            return try await confirm(page, request, context, access)
        }
        try await workspaces.leave(access)
        return cookies.redirect(to: Paths.workspaces(), flash: "workspace_left", for: request)
    }

    @Sendable func transfer(_ request: Request, context: SignedInContext) async throws -> Response {
        let access = try await context.workspaceAccess(workspaces)
        try access.requireOwner()
        guard let newOwner = context.form["owner_id"].flatMap({ Int64($0) }),
              let person = try await members.members(of: access.workspaceId).first(where: { $0.id == newOwner })
        else { throw AppError.conflict("error_transfer_not_member") }
        guard context.isConfirmed else {
            let strings = context.strings
            let page = ConfirmPage(heading: strings.format("confirm_transfer_workspace", access.workspace.name, person.nickname),
                                   consequences: [strings.format("confirm_transfer_consequence", person.nickname)],
                                   action: Paths.transferWorkspace(access.workspaceId), button: strings["confirm_transfer_submit"],
                                   fields: [HiddenField(name: "owner_id", value: String(newOwner))],
                                   cancelURL: Paths.workspaceSettings(access.workspaceId), isDanger: false)
            return try await confirm(page, request, context, access)
        }
        try await workspaces.transfer(access, to: newOwner)
        return cookies.redirect(to: Paths.workspaceSettings(access.workspaceId), flash: "workspace_transferred", for: request)
    }

    // MARK: Pages

    private func createForm(_ context: SignedInContext, balance: Int) -> CreateWorkspaceForm {
        CreateWorkspaceForm(price: workspaces.price, balance: balance,
                            priceNote: context.strings.format("workspace_price_note", workspaces.price, balance))
    }

    private func showList(_ request: Request, _ context: SignedInContext, form: CreateWorkspaceForm,
                          status: HTTPResponse.Status = .ok) async throws -> Response {
        let mine = try await workspaces.workspaces(of: context.userId)
        let strings = context.strings
        let waiting = try invitations.pending(for: context.user).map { invitation in
            InvitationRow(id: invitation.id, workspaceName: invitation.workspaceName,
                          fromText: strings.format("invite_from", invitation.inviterNickname), url: Paths.invite(invitation.token))
        }
        let page = WorkspacesPage(workspaces: mine.map { SidebarWorkspace(id: $0.id!, name: $0.name, url: Paths.workspace($0.id!), isCurrent: false) }, form: form,
                                  invitations: waiting)
        let title = context.strings[page.isEmpty ? "workspaces_empty_title" : "workspaces_title"]
        return try await pages.render(.workspaces, title: title, page: page, request: request, context: context, status: status)
    }

    private func showSettings(_ access: WorkspaceAccess, _ request: Request, _ context: SignedInContext, name: String? = nil,
                              description: String? = nil, errors: FieldErrors = FieldErrors(),
                              status: HTTPResponse.Status = .ok) async throws -> Response {
        let candidates = access.isOwner
            ? try await members.members(of: access.workspaceId).filter { $0.id != access.userId }
                .map { PersonOption.profile($0.id, $0.nickname) }
            : []
        var page = WorkspaceSettingsPage(id: access.workspaceId, name: name ?? access.workspace.name,
                                         description: description ?? access.workspace.description, errors: errors,
                                         isOwner: access.isOwner, transferCandidates: candidates)
        page.coverURL = access.workspace.coverFileId.map { Paths.thumbnail($0) }
        if access.isOwner {
            page.privateChannels = try await channels.privateChannels(access).map { channel in
                RoomLink(id: channel.id, name: channel.name, url: Paths.deleteChannel(access.workspaceId, channel.id),
                         description: context.strings.format("channel_members_count", channel.memberCount),
                         memberCount: channel.memberCount)
            }
        }
        return try await pages.render(.workspaceSettings, title: context.strings["settings_title"], page: page, request: request,
                                      context: context, place: .workspace(access.workspaceId), status: status)
    }

    private func confirm(_ page: ConfirmPage, _ request: Request, _ context: SignedInContext,
                         _ access: WorkspaceAccess) async throws -> Response {
        try await pages.render(.confirm, title: page.heading, page: page, request: request, context: context,
                               place: .workspace(access.workspaceId))
    }
}
