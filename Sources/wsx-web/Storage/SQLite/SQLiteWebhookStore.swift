import Foundation
import GRDB

/// `WebhookStore` on SQLite: the rows of `webhooks` and their bots in `users`.
struct SQLiteWebhookStore: WebhookStore {
    let db: Database

    func insert(workspaceId: Int64, roomId: Int64, name: String, tokenHash: String, createdBy: Int64, at now: Date) throws -> Webhook {
        let address = Webhook.botAddress()
        let time = Timestamps.database(now)
        try db.execute(sql: """
            INSERT INTO users (email, email_key, nickname, password_hash, created_at, updated_at, is_bot, email_confirmed_at)
            VALUES (?, ?, ?, '', ?, ?, 1, ?)
            """, arguments: [address, address, name, time, time, time])
        let bot = db.lastInsertedRowID
        try db.execute(sql: """
            INSERT INTO webhooks (workspace_id, room_id, name, token_hash, bot_user_id, created_by, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """, arguments: [workspaceId, roomId, name, tokenHash, bot, createdBy, time])
        return Webhook(id: db.lastInsertedRowID, workspaceId: workspaceId, roomId: roomId, name: name, botUserId: bot,
                       createdBy: createdBy, creatorNickname: nil, createdAt: now, lastUsedAt: nil)
    }

    func webhook(tokenHash: String) throws -> Webhook? {
        try Row.fetchOne(db, sql: "\(Webhook.select) WHERE webhooks.token_hash = ?", arguments: [tokenHash]).map(Self.webhook)
    }

    func webhook(id: Int64, roomId: Int64) throws -> Webhook? {
        try Row.fetchOne(db, sql: "\(Webhook.select) WHERE webhooks.id = ? AND webhooks.room_id = ?", arguments: [id, roomId]).map(Self.webhook)
    }

    func webhooks(roomId: Int64) throws -> [Webhook] {
        try Row.fetchAll(db, sql: "\(Webhook.select) WHERE webhooks.room_id = ? ORDER BY webhooks.id", arguments: [roomId]).map(Self.webhook)
    }

    func replaceToken(id: Int64, tokenHash: String) throws {
        try db.execute(sql: "UPDATE webhooks SET token_hash = ? WHERE id = ?", arguments: [tokenHash, id])
    }

    func touch(id: Int64, at now: Date) throws {
        try db.execute(sql: "UPDATE webhooks SET last_used_at = ? WHERE id = ?", arguments: [Timestamps.database(now), id])
    }

    func delete(id: Int64) throws {
        try db.execute(sql: "DELETE FROM webhooks WHERE id = ?", arguments: [id])
    }

    private static func webhook(_ row: Row) -> Webhook {
        Webhook(id: row[0], workspaceId: row[1], roomId: row[2], name: row[3], botUserId: row[4], createdBy: row[5],
                creatorNickname: row[6], createdAt: row[7], lastUsedAt: row[8])
    }
}
