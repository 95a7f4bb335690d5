import Foundation

/// A row of `webhooks`: an incoming webhook posting into one room as its bot.
struct Webhook: Sendable, Equatable {
    var id: Int64
    var workspaceId: Int64
    var roomId: Int64
    var name: String
    var botUserId: Int64
    var createdBy: Int64?
    /// Who made it, as the settings page names them (nil: their account is gone).
    var creatorNickname: String?
    var createdAt: Date
    var lastUsedAt: Date?
}

/// Incoming webhooks (`IncomingWebhooks`): only the hash of each URL's token is kept.
protocol WebhookStore {
    /// Makes the hook's bot account (no password, `is_bot`) and the hook; answers the hook.
    func insert(workspaceId: Int64, roomId: Int64, name: String, tokenHash: String, createdBy: Int64, at now: Date) throws -> Webhook
    /// The hook whose token hashes to `tokenHash`.
    func webhook(tokenHash: String) throws -> Webhook?
    /// The hook `id` of room `roomId`.
    func webhook(id: Int64, roomId: Int64) throws -> Webhook?
    /// The room's hooks, oldest first.
    func webhooks(roomId: Int64) throws -> [Webhook]
    /// Gives the hook a new token (the old URL stops working).
    func replaceToken(id: Int64, tokenHash: String) throws
    /// Notes a post through the hook.
    func touch(id: Int64, at now: Date) throws
    /// Deletes the hook (its bot and its messages stay).
    func delete(id: Int64) throws
}

extension Webhook {
    /// The columns every backend's store reads a hook from, with its maker's nickname.
    static let select = """
        SELECT webhooks.id, webhooks.workspace_id, webhooks.room_id, webhooks.name, webhooks.bot_user_id, webhooks.created_by,
               creator.nickname, webhooks.created_at, webhooks.last_used_at
        FROM webhooks LEFT JOIN users AS creator ON creator.id = webhooks.created_by
        """

    /// A bot's address: unique, and at `.invalid` (RFC 2606), which no one can receive mail at
    /// or sign up with.
    static func botAddress() -> String {
        "hook-\(SecretToken.generate().prefix(16).lowercased())@bots.invalid"
    }
}
