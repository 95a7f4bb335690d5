import Foundation
import HTTPTypes
import Views

/// Incoming webhooks: a secret URL per hook that posts into one channel as the hook's bot.
///
/// Any member of a channel may make one (its URL is shown once, and only the token's SHA-256 is
/// kept, so it is never in the database or the logs); its maker, the channel's manager and the
/// workspace's owner may give it a new URL or revoke it. Posts go through the web's poster:
/// the same events, and each hook's posts count against the per-account post limits as its
/// bot's. The workspace's audit log records each hook made, renewed, revoked and used.
struct IncomingWebhooks: Sendable {
    let database: AppDatabase
    let clock: WallClock
    let poster: MessagePoster
    let rateLimiter: AccountRateLimiter

    /// The longest name a hook may have (it is its bot's nickname).
    static let nameLimit = TextLimit(characters: 30)

    /// Makes a hook in the channel (its members only); answers it and its URL's token.
    func create(_ view: ChannelService.View, name rawName: String) async throws -> (Webhook, String) {
        guard view.isMember else { throw AppError.forbidden("error_channel_members_only") }
        let name = rawName.cleanedLine
        var problems = FormProblems()
        if name.isEmpty { problems.add(.name, "error_webhook_name_length") }
        problems.check(name, fits: Self.nameLimit, .name, tooLongKey: "error_webhook_name_length")
        try problems.throwIfAny()
        let token = SecretToken.generate(), now = clock.now()
        let hook = try await database.write { tx in
            let hook = try tx.webhooks.insert(workspaceId: view.room.workspaceId, roomId: view.room.id!, name: name,
                                              tokenHash: SecretToken.hash(token), createdBy: view.access.userId, at: now)
            try tx.audit.record(workspaceId: view.room.workspaceId, actor: view.access.userId, action: "webhook.create",
                                targetRoom: view.room.id!, detail: name, at: now)
            return hook
        }
        return (hook, token)
    }

    /// The channel's hooks, oldest first.
    func hooks(in roomId: Int64) async throws -> [Webhook] {
        try await database.queryOffLoop { tx in try tx.webhooks.webhooks(roomId: roomId) }
    }

    /// Whether `view`'s person may renew or revoke `hook`: its maker, the channel's manager, or
    /// the workspace's owner.
    static func mayManage(_ hook: Webhook, _ view: ChannelService.View) -> Bool {
        hook.createdBy == view.access.userId || view.canManage
    }

    /// Gives the hook a new URL (the old one stops working); answers its token.
    func renew(_ view: ChannelService.View, hookId: Int64) async throws -> String {
        let token = SecretToken.generate(), now = clock.now()
        try await database.write { tx in
            let hook = try Self.managed(tx, view, hookId)
            try tx.webhooks.replaceToken(id: hook.id, tokenHash: SecretToken.hash(token))
            try tx.audit.record(workspaceId: hook.workspaceId, actor: view.access.userId, action: "webhook.renew",
                                targetRoom: hook.roomId, detail: hook.name, at: now)
        }
        return token
    }

    /// Revokes the hook: its URL stops working; its bot's messages stay.
    func revoke(_ view: ChannelService.View, hookId: Int64) async throws {
        let now = clock.now()
        try await database.write { tx in
            let hook = try Self.managed(tx, view, hookId)
            try tx.webhooks.delete(id: hook.id)
            try tx.audit.record(workspaceId: hook.workspaceId, actor: view.access.userId, action: "webhook.revoke",
                                targetRoom: hook.roomId, detail: hook.name, at: now)
        }
    }

    private static func managed(_ tx: any StoreTransaction, _ view: ChannelService.View, _ hookId: Int64) throws -> Webhook {
        guard let hook = try tx.webhooks.webhook(id: hookId, roomId: view.room.id!) else { throw AppError.notFound }
        guard mayManage(hook, view) else { throw AppError.forbidden("error_webhook_manager_only") }
        return hook
    }

    /// Why a post through a hook was refused, in Slack's words.
    enum Refusal: Error, Equatable {
        /// No hook has this URL (Slack: `no_service`, 404).
        case noService
        /// Nothing to show (`no_text`, 400).
        case noText
        /// Longer than a message may be (`msg_too_long`, 400).
        case tooLong
        /// The channel is archived (`channel_is_archived`, 410).
        case archived
        /// Past the per-account post limits (`rate_limited`, 429, with the seconds to wait).
        case rateLimited(seconds: Int)
    }

    /// Posts `payload` through the hook whose URL's token is `token`; answers the message id.
    func post(token: String, payload: SlackPayload) async throws -> Int64 {
        let hash = SecretToken.hash(token)
        let found = try await database.queryOffLoop { tx -> (Webhook, Room, User)? in
            guard let hook = try tx.webhooks.webhook(tokenHash: hash), let room = try tx.rooms.room(id: hook.roomId),
                  let bot = try tx.accounts.user(id: hook.botUserId) else { return nil }
            return (hook, room, bot)
        }
        guard let (hook, room, bot) = found else { throw Refusal.noService }
        let text = payload.markdown
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw Refusal.noText }
        do {
            try rateLimiter.charge(.post, userId: bot.id!)
        } catch let error as AppError where error.status == .tooManyRequests {
            throw Refusal.rateLimited(seconds: Int(error.headers[.retryAfter] ?? "1") ?? 1)
        }
        let posted: WrittenMessage
        do {
            // The fragment is drawn from the stored row, which says its author is a bot.
            posted = try await poster.deliver(text, files: [], in: room, author: bot, drawEarly: false)
        } catch is FormProblems {
            throw Refusal.tooLong
        } catch let error as AppError where error.messageKey == "error_channel_archived" {
            throw Refusal.archived
        }
        let now = clock.now()
        try await database.write { tx in
            try tx.webhooks.touch(id: hook.id, at: now)
            try tx.audit.record(workspaceId: hook.workspaceId, actor: hook.botUserId, action: "webhook.post",
                                targetRoom: hook.roomId, detail: hook.name, at: now)
        }
        return posted.id
    }
}
