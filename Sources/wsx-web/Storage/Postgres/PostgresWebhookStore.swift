import Foundation
import PostgresNIO

/// `WebhookStore` on PostgreSQL: the rows of `webhooks` and their bots in `users`.
struct PostgresWebhookStore: WebhookStore {
    let session: PostgresSession

    func insert(workspaceId: Int64, roomId: Int64, name: String, tokenHash: String, createdBy: Int64, at now: Date) throws -> Webhook {
        let address = Webhook.botAddress()
        let bot = try session.run("""
            INSERT INTO users (email, email_key, nickname, password_hash, created_at, updated_at, is_bot, email_confirmed_at)
            VALUES (\(address), \(address), \(name), '', \(now), \(now), true, \(now)) RETURNING id
            """).first!.decode(Int64.self)
        let id = try session.run("""
            INSERT INTO webhooks (workspace_id, room_id, name, token_hash, bot_user_id, created_by, created_at)
            VALUES (\(workspaceId), \(roomId), \(name), \(tokenHash), \(bot), \(createdBy), \(now)) RETURNING id
            """).first!.decode(Int64.self)
        return Webhook(id: id, workspaceId: workspaceId, roomId: roomId, name: name, botUserId: bot, createdBy: createdBy,
                       creatorNickname: nil, createdAt: now, lastUsedAt: nil)
    }

    func webhook(tokenHash: String) throws -> Webhook? {
        try session.run(numbered: "\(Webhook.select) WHERE webhooks.token_hash = $1", binding: tokenHash).first.map(Self.webhook)
    }

    func webhook(id: Int64, roomId: Int64) throws -> Webhook? {
        try session.run(numbered: "\(Webhook.select) WHERE webhooks.id = $1 AND webhooks.room_id = $2", binding: id, roomId)
            .first.map(Self.webhook)
    }

    func webhooks(roomId: Int64) throws -> [Webhook] {
        try session.run(numbered: "\(Webhook.select) WHERE webhooks.room_id = $1 ORDER BY webhooks.id", binding: roomId).map(Self.webhook)
    }

    func replaceToken(id: Int64, tokenHash: String) throws {
        try session.run("UPDATE webhooks SET token_hash = \(tokenHash) WHERE id = \(id)")
    }

    func touch(id: Int64, at now: Date) throws {
        try session.run("UPDATE webhooks SET last_used_at = \(now) WHERE id = \(id)")
    }

    func delete(id: Int64) throws {
        try session.run("DELETE FROM webhooks WHERE id = \(id)")
    }

    private static func webhook(_ row: PostgresRow) throws -> Webhook {
        let cells = try row.decode((Int64, Int64, Int64, String, Int64, Int64?, String?, Date, Date?).self)
        return Webhook(id: cells.0, workspaceId: cells.1, roomId: cells.2, name: cells.3, botUserId: cells.4, createdBy: cells.5,
                       creatorNickname: cells.6, createdAt: cells.7, lastUsedAt: cells.8)
    }
}
