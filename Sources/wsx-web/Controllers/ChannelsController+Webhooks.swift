import Hummingbird
import Views

/// A channel's incoming webhooks on its settings page: made by any member, whose URL is shown
/// once; renewed and revoked by their maker, the channel's manager or the workspace's owner.
extension ChannelsController {
    @Sendable func createWebhook(_ request: Request, context: SignedInContext) async throws -> Response {
        let view = try await channel(context)
        do {
            let (_, token) = try await webhooks.create(view, name: context.form["name"] ?? "")
            return try await showSettings(view, request, context, newWebhookURL: site.base + Paths.incomingWebhook(token))
        } catch let problems as FormProblems {
            return try await showSettings(view, request, context, errors: FieldErrors(problems, context.strings),
                                          status: .unprocessableContent)
        }
    }

    @Sendable func renewWebhook(_ request: Request, context: SignedInContext) async throws -> Response {
        let view = try await channel(context)
        let token = try await webhooks.renew(view, hookId: try context.id("hid"))
        return try await showSettings(view, request, context, newWebhookURL: site.base + Paths.incomingWebhook(token))
    }

    @Sendable func revokeWebhook(_ request: Request, context: SignedInContext) async throws -> Response {
        let view = try await channel(context)
        try await webhooks.revoke(view, hookId: try context.id("hid"))
        return cookies.redirect(to: path(view, Paths.channelSettings) + "#webhooks-card", flash: "webhook_revoked", for: request)
    }

    /// The webhooks part of the settings page: for the channel's members and managers.
    func describeWebhooks(_ page: inout ChannelSettingsPage, _ view: ChannelService.View, newURL: String?) async throws {
        guard view.isMember || view.canManage else { return }
        page.webhooksShown = true
        page.newWebhookURL = newURL
        if view.isMember { page.webhookCreateURL = path(view, Paths.channelWebhooks) }
        let (wid, cid) = (view.room.workspaceId, view.room.id!)
        page.webhooks = try await webhooks.hooks(in: cid).map { hook in
            let manages = IncomingWebhooks.mayManage(hook, view)
            return WebhookRow(name: hook.name, creator: hook.creatorNickname ?? "—", createdAt: Timestamps.iso(hook.createdAt),
                              createdText: Timestamps.utcText(hook.createdAt), lastUsedAt: hook.lastUsedAt.map(Timestamps.iso),
                              lastUsedText: hook.lastUsedAt.map(Timestamps.utcText),
                              renewURL: manages ? Paths.renewWebhook(wid, cid, hook.id) : nil,
                              revokeURL: manages ? Paths.revokeWebhook(wid, cid, hook.id) : nil)
        }
    }
}
