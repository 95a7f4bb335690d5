import Foundation

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
        let now = clock.now()
        return try await database.write { tx in
            let (_, room) = try tx.messages.visible(id: messageId, access)
            let changed = saved ? try tx.saved.add(messageId: messageId, userId: access.userId, at: now)
                : try tx.saved.remove(messageId: messageId, userId: access.userId)
            let payload = SavedPayload(workspaceId: room.workspaceId, roomId: room.id!, messageId: messageId, saved: saved)
            if changed {
                try tx.publish(OutgoingEvent(.savedChanged, to: .user(access.userId), payload: payload))
            }
            return (room, payload)
        }
    }

    /// The ids of every message the person saved, from memory or else read in `tx` (nil: memory only).
    func ids(_ tx: (any StoreTransaction)?, userId: Int64) throws -> Set<Int64> {
        try kept.value(for: userId, in: tx) { tx in try tx.saved.messageIds(userId: userId) }
    }

    func isSaved(messageId: Int64, userId: Int64) async throws -> Bool {
        try await database.queryOffLoop { tx in try ids(tx, userId: userId).contains(messageId) }
    }

    /// The person's saved messages in the workspace, the latest saved first, in rooms they are
    /// still in.
    func list(userId: Int64, workspaceId: Int64, limit: Int = 200) async throws -> [CollectedMessage] {
        try await database.queryOffLoop { tx in
            try tx.messages.collected(in: .saved, userId: userId, workspaceId: workspaceId, limit: limit)
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
