import Foundation
import GRDB

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
        let now = clock.now(), outbox = database.outbox
        return try await database.writer.write { db in
            let (_, room) = try MessageService.writableMessage(db, id: messageId, access)
            if pinned {
                try db.execute(sql: "INSERT INTO pins (message_id, room_id, pinned_by, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                               arguments: [messageId, room.id!, access.userId, Timestamps.database(now)])
            } else {
                try db.execute(sql: "DELETE FROM pins WHERE message_id = ?", arguments: [messageId])
            }
            let changed = db.changesCount > 0
            let payload = PinsPayload(workspaceId: room.workspaceId, roomId: room.id!, messageId: messageId, pinned: pinned,
                                      count: try Self.count(db, roomId: room.id!))
            if changed {
                try outbox.publish(OutgoingEvent(.pinsChanged, to: .room(room.id!), payload: payload), in: db)
            }
            return (room, payload)
        }
    }

    /// Tells the room a pinned message is gone with its pin (the message's deletion cascaded to it).
    static func announceDeleted(_ db: Database, messageId: Int64, room: Room, outbox: EventOutbox) throws {
        let payload = PinsPayload(workspaceId: room.workspaceId, roomId: room.id!, messageId: messageId, pinned: false,
                                  count: try count(db, roomId: room.id!))
        try outbox.publish(OutgoingEvent(.pinsChanged, to: .room(room.id!), payload: payload), in: db)
    }

    func isPinned(messageId: Int64) async throws -> Bool {
        try database.read { db in try Self.isPinned(db, messageId: messageId) }
    }

    static func isPinned(_ db: Database, messageId: Int64) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM pins WHERE message_id = ?)", arguments: [messageId]) ?? false
    }

    static func count(_ db: Database, roomId: Int64) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM pins WHERE room_id = ?"), arguments: [roomId]) ?? 0
    }

    /// Which of `messageIds` are pinned.
    static func pinned(_ db: Database, among messageIds: [Int64]) throws -> Set<Int64> {
        guard !messageIds.isEmpty else { return [] }
        return Set(try Int64.fetchAll(db, sql: "SELECT message_id FROM pins WHERE message_id IN (\(databaseQuestionMarks(count: messageIds.count)))",
                                      arguments: StatementArguments(messageIds)))
    }

    /// A room's pinned messages, the latest pin first.
    func list(roomId: Int64, for userId: Int64) async throws -> [CollectedMessage] {
        try database.read { db in
            let rows = try MessageRow.fetchAll(db, sql: """
                SELECT \(MessageRow.columns)
                FROM pins JOIN messages ON messages.id = pins.message_id
                LEFT JOIN users ON users.id = messages.author_id
                WHERE pins.room_id = ? ORDER BY pins.created_at DESC, pins.message_id DESC
                """, arguments: [roomId])
            return try SQLiteMessageStore(db: db).collect(MessageService.withAttachments(db, rows), for: userId)
        }
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
