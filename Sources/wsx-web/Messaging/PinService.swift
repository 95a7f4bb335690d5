import Foundation

/// Pins: any member of a room may pin one of its messages for everyone in it, and any member
/// may unpin it. The room header counts them and links to their list. Every change is one
/// transaction with the event that tells the room.
struct PinService: Sendable {
    let database: AppDatabase
    let clock: WallClock

    /// Pins the message (`pinned`) or unpins it; answers the room's pins as they are now.
    /// Pinning a pinned message (or unpinning one that is not) changes nothing and tells no one.
    /// A 404 outside the room.
    func set(messageId: Int64, pinned: Bool, in access: WorkspaceAccess) async throws -> (Room, PinsPayload) {
        let now = clock.now()
        return try await database.write { tx in
            let (_, room) = try tx.messages.writable(id: messageId, access)
            let changed = pinned ? try tx.pins.pin(messageId: messageId, roomId: room.id!, by: access.userId, at: now)
                : try tx.pins.unpin(messageId: messageId)
            let payload = PinsPayload(workspaceId: room.workspaceId, roomId: room.id!, messageId: messageId, pinned: pinned,
                                      count: try tx.pins.count(roomId: room.id!))
            if changed {
                try tx.publish(OutgoingEvent(.pinsChanged, to: .room(room.id!), payload: payload))
            }
            return (room, payload)
        }
    }

    /// Tells the room a pinned message is gone with its pin (the message's deletion cascaded to it).
    static func announceDeleted(_ tx: any StoreTransaction, messageId: Int64, room: Room) throws {
        let payload = PinsPayload(workspaceId: room.workspaceId, roomId: room.id!, messageId: messageId, pinned: false,
                                  count: try tx.pins.count(roomId: room.id!))
        try tx.publish(OutgoingEvent(.pinsChanged, to: .room(room.id!), payload: payload))
    }

    func isPinned(messageId: Int64) async throws -> Bool {
        try await database.queryOffLoop { tx in try tx.pins.isPinned(messageId: messageId) }
    }

    /// A room's pinned messages, the latest pin first.
    func list(roomId: Int64, for userId: Int64) async throws -> [CollectedMessage] {
        try await database.queryOffLoop { tx in try tx.messages.collect(tx.pins.rows(roomId: roomId), for: userId) }
    }
}

/// `pins.changed`: one message was pinned or unpinned, and how many the room has now (room
/// audience). Also the JSON answer to the person who pinned.
struct PinsPayload: Codable, Sendable {
    let workspaceId: Int64
    let roomId: Int64
    let messageId: Int64
    let pinned: Bool
    let count: Int
}
