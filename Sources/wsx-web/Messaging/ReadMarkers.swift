import Foundation

/// A person's place in one room: how many messages they have not read, how many of those
/// mention them (by name or as @here/@channel), and the newest they have read.
struct RoomMarker: Sendable, Equatable {
    let unread: Int
    let lastRead: Int64
    var mentions = 0
}

/// Each person's markers in the rooms of a workspace, as last read, kept until a commit changes
/// `room_members` or `mentions` (every post moves the others' counts, every read the reader's
/// marker, an edit may mention someone). The sidebar's badges and a room page's unread line
/// come from here.
struct ReadMarkers: Sendable {
    let kept: VersionedCache<Key, [Int64: RoomMarker]>

    struct Key: Hashable, Sendable {
        let userId: Int64, workspaceId: Int64
    }

    init(database: AppDatabase, clock: WallClock) {
        kept = VersionedCache("read markers", of: database, clock: clock, capacity: 4096)
    }

    /// `userId`'s markers by room, from memory, or else read in `tx` (nil: memory only).
    func markers(_ tx: (any StoreTransaction)?, userId: Int64, workspaceId: Int64) throws -> [Int64: RoomMarker] {
        try kept.value(for: Key(userId: userId, workspaceId: workspaceId), in: tx) { tx in
            try tx.readMarks.markers(userId: userId, workspaceId: workspaceId)
        }
    }
}
