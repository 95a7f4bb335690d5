import Foundation
import GRDB

/// Each person's messages saved for later: a private list, in the order they were saved, of
/// messages in rooms they can still read. Changes reach the person's other tabs as events.
struct SavedMessages: Sendable {
    let database: AppDatabase
    let clock: WallClock
    /// Every saved message id per person, while nobody's saved list changed: a room page marks
    /// its saved messages without a query.
    private let kept: VersionedCache<Int64, Set<Int64>>

    init(database: AppDatabase, clock: WallClock) {
        (self.database, self.clock) = (database, clock)
        kept = VersionedCache("saved messages", of: database, clock: clock, capacity: 1024)
    }

    /// Saves the message for the person (`saved`) or takes it off their list. A 404 outside the
    /// message's room; saving twice changes nothing and tells no one.
    func set(messageId: Int64, saved: Bool, in access: WorkspaceAccess) async throws -> (Room, SavedPayload) {
        let now = clock.now(), outbox = database.outbox
        return try await database.writer.write { db in
            let (_, room) = try MessageService.visibleMessage(db, id: messageId, access)
            if saved {
                try db.execute(sql: "INSERT INTO saved_messages (user_id, message_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                               arguments: [access.userId, messageId, Timestamps.database(now)])
            } else {
                try db.execute(sql: "DELETE FROM saved_messages WHERE user_id = ? AND message_id = ?",
                               arguments: [access.userId, messageId])
            }
            let changed = db.changesCount > 0
            let payload = SavedPayload(workspaceId: room.workspaceId, roomId: room.id!, messageId: messageId, saved: saved)
            if changed {
                try outbox.publish(OutgoingEvent(.savedChanged, to: .user(access.userId), payload: payload), in: db)
            }
            return (room, payload)
        }
    }

    /// The ids of every message the person saved, from memory or else read in `db` (nil: memory only).
    func ids(_ db: Database?, userId: Int64) throws -> Set<Int64> {
        try kept.value(for: userId, in: db) { db in
            Set(try Int64.fetchAll(db.cachedStatement(sql: "SELECT message_id FROM saved_messages WHERE user_id = ?"),
                                   arguments: [userId]))
        }
    }

    func isSaved(messageId: Int64, userId: Int64) async throws -> Bool {
        try database.read { db in try ids(db, userId: userId).contains(messageId) }
    }

    /// The person's saved messages in the workspace, the latest saved first, in rooms they are
    /// still in.
    func list(userId: Int64, workspaceId: Int64, limit: Int = 200) async throws -> [CollectedMessage] {
        try database.read { db in
            try CollectedMessage.listed(db, in: "saved_messages", userId: userId, workspaceId: workspaceId,
                                        order: "listed.created_at DESC, listed.message_id DESC", limit: limit)
        }
    }
}

/// `saved.changed`: the person saved a message or took it off their list (user audience: their
/// other tabs). Also the JSON answer to the request.
struct SavedPayload: Codable, Sendable {
    let workspaceId: Int64
    let roomId: Int64
    let messageId: Int64
    let saved: Bool
}
