import Hummingbird
import Views

/// Channels: browse and create, a channel's page, join and leave, settings, hand-over, deletion.
struct ChannelsController: Sendable {
    let workspaces: WorkspaceService
    let channels: ChannelService
    let members: MembershipService
    let files: FileService
    let webhooks: IncomingWebhooks
    /// Where links point (`--base-url`): a webhook's URL.
    let site: SiteAddress
    let cookies: CookiePolicy
    let pages: Pages

    func addRoutes(to group: RouterGroup<SignedInContext>) {
        group.get(Paths.channels.routerPath, use: browse)
        group.post(Paths.channels.routerPath, use: create)
        group.post(Paths.joinChannel.routerPath, use: join)
        group.post(Paths.leaveChannel.routerPath, use: leave)
        group.get(Paths.channelSettings.routerPath, use: settings)
        group.post(Paths.channelSettings.routerPath, use: update)
        group.post(Paths.deleteChannel.routerPath, use: delete)
        group.post(Paths.transferChannel.routerPath, use: transfer)
        group.post(Paths.channelMembers.routerPath, use: addMember)
        group.post(Paths.channelVisibility.routerPath, use: changeVisibility)
        group.post(Paths.archiveChannel.routerPath) { request, context in try await archive(request, context, archived: true) }
        group.post(Paths.unarchiveChannel.routerPath) { request, context in try await archive(request, context, archived: false) }
        group.post(Paths.channelWebhooks.routerPath, use: createWebhook)
        group.post(Paths.renewWebhook.routerPath, use: renewWebhook)
        group.post(Paths.revokeWebhook.routerPath, use: revokeWebhook)
    }

    @Sendable func browse(_ request: Request, context: SignedInContext) async throws -> Response {
        try await showDirectory(try await context.workspaceAccess(workspaces), request, context)
    }

    @Sendable func create(_ request: Request, context: SignedInContext) async throws -> Response {
        let access = try await context.workspaceAccess(workspaces)
        let name = context.form["name"] ?? "", description = context.form["description"] ?? ""
        guard let visibility = Room.Visibility(rawValue: context.form["visibility"] ?? "public") else { throw AppError.badRequest }
        do {
            let room = try await channels.create(access, name: name, description: description, visibility: visibility)
            return Pages.redirect(to: Paths.channel(access.workspaceId, room.id!))
        } catch let problems as FormProblems {
            return try await showDirectory(access, request, context, name: name.cleanedLine, description: description,
                                           isPrivate: visibility == .private, errors: FieldErrors(problems, context.strings),
                                           status: .unprocessableContent)
        }
    }

    @Sendable func join(_ request: Request, context: SignedInContext) async throws -> Response {
        let view = try await channel(context)
        try await channels.join(view)
        return Pages.redirect(to: path(view))
    }

    @Sendable func leave(_ request: Request, context: SignedInContext) async throws -> Response {
        let view = try await channel(context)
        guard view.isMember else { throw AppError.notFound }
        if view.room.isDefault { throw AppError.conflict("error_default_channel_leave") }
        if view.room.ownerId == context.userId { throw AppError.conflict("error_channel_owner_leave") }
        guard context.isConfirmed else {
            let page = ConfirmPage(heading: context.strings.format("confirm_leave_channel", view.room.name), consequences: [],
                                   action: path(view, Paths.leaveChannel), button: context.strings["confirm_leave_channel_submit"],
                                   cancelURL: path(view), isDanger: false)
            return try await confirm(page, view, request, context)
        }
        try await channels.leave(view)
        return cookies.redirect(to: Paths.workspace(view.room.workspaceId), flash: "channel_left", for: request)
    }

    @Sendable func settings(_ request: Request, context: SignedInContext) async throws -> Response {
        try await showSettings(try await channel(context), request, context)
    }

    @Sendable func update(_ request: Request, context: SignedInContext) async throws -> Response {
        let view = try await channel(context)
        try view.requireManager()
        let (form, cover) = try await files.readPictureForm(request, visitor: context.visitor)
        let name = form["name"] ?? "", description = form["description"] ?? ""
        do {
            try await channels.update(view, name: name, description: description, cover: cover)
            if cover != nil { try await files.collectGarbage() }
            return cookies.redirect(to: path(view, Paths.channelSettings), flash: "channel_saved", for: request)
        } catch let problems as FormProblems {
            return try await showSettings(view, request, context, name: name.cleanedLine, description: description,
                                          errors: FieldErrors(problems, context.strings), status: .unprocessableContent)
        }
    }

    @Sendable func delete(_ request: Request, context: SignedInContext) async throws -> Response {
        // The workspace owner deletes a private channel they are not in from the workspace settings.
        let view: ChannelService.View
        do {
            view = try await channel(context)
        } catch let error as AppError where error.status == .notFound {
            let access = try await context.workspaceAccess(workspaces)
            guard access.isOwner else { throw error }
            view = try await channels.privateChannelForOwner(access, id: try context.id("cid"))
        }
        try view.requireManager()
        if view.room.isDefault { throw AppError.conflict("error_default_channel_delete") }
        guard context.isConfirmed else {
            let strings = context.strings
            let messages = try await channels.messageCount(of: view.room.id!)
            let page = ConfirmPage(heading: strings.format("confirm_delete_channel", view.room.name),
                                   consequences: [strings.format("confirm_delete_channel_consequence", view.memberCount, messages),
                                                  strings["confirm_cannot_undo"]],
                                   action: path(view, Paths.deleteChannel), button: strings["confirm_delete_submit"],
                                   cancelURL: view.isMember ? path(view, Paths.channelSettings) : Paths.workspaceSettings(view.room.workspaceId))
            return try await confirm(page, view, request, context)
        }
        let hashes = try await files.hashes(in: .room(view.room.id!))
        try await channels.delete(view)
        try await files.collectGarbage(candidates: hashes)
        return cookies.redirect(to: Paths.workspace(view.room.workspaceId), flash: "channel_deleted", for: request)
    }

    @Sendable func transfer(_ request: Request, context: SignedInContext) async throws -> Response {
        let view = try await channel(context)
        try view.requireManager()
        if view.room.isDefault { throw AppError.conflict("error_default_channel_transfer") }
        guard let newOwner = context.form["owner_id"].flatMap({ Int64($0) }),
              let person = try await channels.members(of: view.room.id!).first(where: { $0.id == newOwner })
        else { throw AppError.conflict("error_transfer_not_channel_member") }
        guard context.isConfirmed else {
            let page = ConfirmPage(heading: context.strings.format("confirm_transfer_channel", view.room.name, person.nickname),
                                   consequences: [], action: path(view, Paths.transferChannel),
                                   button: context.strings["confirm_transfer_submit"],
                                   fields: [HiddenField(name: "owner_id", value: String(newOwner))],
                                   cancelURL: path(view, Paths.channelSettings), isDanger: false)
            return try await confirm(page, view, request, context)
        }
        try await channels.transfer(view, to: newOwner)
        return cookies.redirect(to: path(view, Paths.channelSettings), flash: "channel_transferred", for: request)
    }

    /// Adds someone from the workspace (`member` = their id); any member of the channel may.
    @Sendable func addMember(_ request: Request, context: SignedInContext) async throws -> Response {
        let view = try await channel(context)
        guard let userId = context.form["member"].flatMap({ Int64($0) }) else { throw AppError.badRequest }
        try await channels.addMember(view, userId: userId)
        return cookies.redirect(to: path(view, Paths.channelSettings), flash: "channel_member_added", for: request)
    }

    /// `visibility` = `private` (at once) or `public` (after a page that says the whole
    /// history opens to the workspace). The channel's owner only.
    @Sendable func changeVisibility(_ request: Request, context: SignedInContext) async throws -> Response {
        let view = try await channel(context)
        guard let visibility = Room.Visibility(rawValue: context.form["visibility"] ?? "") else { throw AppError.badRequest }
        guard view.room.ownerId == context.userId else { throw AppError.forbidden("error_channel_owner_only") }
        if view.room.isDefault { throw AppError.conflict("error_default_channel_private") }
        if visibility == .public, view.room.isPrivate, !context.isConfirmed {
            let strings = context.strings
            let page = ConfirmPage(heading: strings.format("confirm_make_public", view.room.name),
                                   consequences: [strings["confirm_make_public_consequence"]],
                                   action: path(view, Paths.channelVisibility), button: strings["confirm_make_public_submit"],
                                   fields: [HiddenField(name: "visibility", value: "public")],
                                   cancelURL: path(view, Paths.channelSettings), isDanger: false)
            return try await confirm(page, view, request, context)
        }
        try await channels.setVisibility(view, visibility)
        return cookies.redirect(to: path(view, Paths.channelSettings),
                                flash: visibility == .private ? "channel_made_private" : "channel_made_public", for: request)
    }

    /// Archives (after a confirmation page) or brings back a channel: its owner or the
    /// workspace owner.
    private func archive(_ request: Request, _ context: SignedInContext, archived: Bool) async throws -> Response {
        let view = try await channel(context)
        try view.requireManager()
        if view.room.isDefault { throw AppError.conflict("error_default_channel_archive") }
        if archived, !view.room.isArchived, !context.isConfirmed {
            let strings = context.strings
            let page = ConfirmPage(heading: strings.format("confirm_archive_channel", view.room.name),
                                   consequences: [strings["confirm_archive_channel_consequence"]],
                                   action: path(view, Paths.archiveChannel), button: strings["channel_archive"],
                                   cancelURL: path(view, Paths.channelSettings), isDanger: false)
            return try await confirm(page, view, request, context)
        }
        try await channels.setArchived(view, archived)
        return cookies.redirect(to: path(view), flash: archived ? "channel_archived" : "channel_unarchived", for: request)
    }

    // MARK: Helpers

    func channel(_ context: SignedInContext) async throws -> ChannelService.View {
        let access = try await context.workspaceAccess(workspaces)
        return try await channels.channel(access, id: try context.id("cid"))
    }

    /// A link to `route` for the channel of `view`.
    func path(_ view: ChannelService.View, _ route: Route<Int64, Int64> = Paths.channel) -> String {
        route(view.room.workspaceId, view.room.id!)
    }

    private func showDirectory(_ access: WorkspaceAccess, _ request: Request, _ context: SignedInContext, name: String = "",
                               description: String = "", isPrivate: Bool = false, errors: FieldErrors = FieldErrors(),
                               status: HTTPResponse.Status = .ok) async throws -> Response {
        let listings = try await channels.browse(access).map { channel in
            var link = RoomLink(id: channel.id, name: channel.name, url: Paths.channel(access.workspaceId, channel.id),
                                description: channel.description, memberCount: channel.memberCount, joined: channel.joined,
                                isDefault: channel.isDefault)
            link.isPrivate = channel.visibility == .private
            return link
        }
        var page = ChannelsPage(workspaceId: access.workspaceId, channels: listings, name: name, description: description,
                                errors: errors)
        page.isPrivate = isPrivate
        return try await pages.render(.channels, title: context.strings["channels_browse"], page: page, request: request,
                                      context: context, place: .workspace(access.workspaceId), status: status)
    }

    func showSettings(_ view: ChannelService.View, _ request: Request, _ context: SignedInContext,
                      name: String? = nil, description: String? = nil, errors: FieldErrors = FieldErrors(),
                      newWebhookURL: String? = nil, status: HTTPResponse.Status = .ok) async throws -> Response {
        let people = try await channels.members(of: view.room.id!).map { PersonOption.profile($0.id, $0.nickname) }
        var page = ChannelSettingsPage(workspaceId: view.room.workspaceId, id: view.room.id!, name: name ?? view.room.name,
                                       description: description ?? view.room.description, errors: errors,
                                       canManage: view.canManage, isDefault: view.room.isDefault, isMember: view.isMember,
                                       isOwner: view.room.ownerId == context.userId, members: people,
                                       transferCandidates: people.filter { $0.id != view.room.ownerId },
                                       settingsURL: path(view, Paths.channelSettings), deleteURL: path(view, Paths.deleteChannel),
                                       leaveURL: path(view, Paths.leaveChannel), transferURL: path(view, Paths.transferChannel))
        page.coverURL = view.room.coverFileId.map { Paths.thumbnail($0) }
        page.isPrivate = view.room.isPrivate
        page.isArchived = view.room.isArchived
        if view.canManage, !view.room.isDefault {
            page.archiveURL = path(view, view.room.isArchived ? Paths.unarchiveChannel : Paths.archiveChannel)
        }
        if view.room.ownerId == context.userId, !view.room.isDefault { page.visibilityURL = path(view, Paths.channelVisibility) }
        if view.isMember, !view.room.isDefault {
            page.addMemberURL = path(view, Paths.channelMembers)
            let inChannel = Set(people.map(\.id))
            page.addCandidates = try await members.members(of: view.room.workspaceId).filter { !inChannel.contains($0.id) }
                .map { PersonOption.profile($0.id, $0.nickname) }
        }
        try await describeWebhooks(&page, view, newURL: newWebhookURL)
        return try await pages.render(.channelSettings, title: context.strings["channel_settings_title"], page: page,
                                      request: request, context: context,
                                      place: .room(workspace: view.room.workspaceId, room: view.room.id!), status: status)
    }

    private func confirm(_ page: ConfirmPage, _ view: ChannelService.View, _ request: Request,
                         _ context: SignedInContext) async throws -> Response {
        try await pages.render(.confirm, title: page.heading, page: page, request: request, context: context,
                               place: .room(workspace: view.room.workspaceId, room: view.room.id!))
    }
}
