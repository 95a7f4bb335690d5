import Foundation

/// A person's place in one room: how many messages they have not read, how many of those
/// mention them (by name or as @here/@channel), and the newest they have read.
struct RoomMarker: Sendable, Equatable {
    let unread: Int
    let lastRead: Int64
    var mentions = 0
}

/// Counts as read in one transaction, with the newest event id then: they include exactly the
/// events up to it (each post's event commits with it). A page carries the id, so its script
/// does not count again an event replayed to it that its counts already hold. A value kept
/// keeps its id: any later event that changes the counts also drops the value.
struct Counted<Value: Sendable>: Sendable {
    let value: Value
    let throughEventId: Int64

    /// `read`'s value in `tx`, stamped with the event id of `tx`'s snapshot.
    static func read(in tx: any StoreTransaction, _ read: () throws -> Value) throws -> Counted {
        Counted(value: try read(), throughEventId: try tx.events.latestIdAsStamp())
    }
}

/// Each person's markers in the rooms of a workspace, as last read, kept until a commit changes
/// `room_members` or `mentions` (every post moves the others' counts, every read the reader's
/// marker, an edit may mention someone). The sidebar's badges and a room page's unread line
/// come from here.
struct ReadMarkers: Sendable {
    let kept: VersionedCache<Key, Counted<[Int64: RoomMarker]>>

    struct Key: Hashable, Sendable {
        let userId: Int64, workspaceId: Int64
    }

    init(database: AppDatabase, clock: WallClock) {
        kept = VersionedCache("read markers", of: database, clock: clock, capacity: 4096)
    }

    /// `userId`'s markers by room, from memory, or else read in `tx` (nil: memory only).
    func markers(_ tx: (any StoreTransaction)?, userId: Int64, workspaceId: Int64) throws -> [Int64: RoomMarker] {
        try counted(tx, userId: userId, workspaceId: workspaceId).value
    }

    /// The same, with the event id they are exact for.
    func counted(_ tx: (any StoreTransaction)?, userId: Int64, workspaceId: Int64) throws -> Counted<[Int64: RoomMarker]> {
        try kept.value(for: Key(userId: userId, workspaceId: workspaceId), in: tx) { tx in
            try Counted.read(in: tx) { try tx.readMarks.markers(userId: userId, workspaceId: workspaceId) }
        }
    }
}
