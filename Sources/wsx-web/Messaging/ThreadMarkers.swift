import Foundation

/// Each person's unread thread replies per workspace (the sidebar's Threads badge) and the
/// unread ones among them that mention them (part of the Mentions badge), as last read, kept
/// until a commit changes who follows what or how far they read, or room membership. (A reply
/// that mentions someone makes them a follower, so it changes `thread_follows`.)
struct ThreadMarkers: Sendable {
    let kept: VersionedCache<Key, Counted<ThreadUnread>>

    struct Key: Hashable, Sendable {
        let userId: Int64, workspaceId: Int64
    }

    init(database: AppDatabase, clock: WallClock) {
        kept = VersionedCache("thread markers", of: database, clock: clock, capacity: 4096)
    }

    /// From memory, or else read in `tx` (nil: memory only).
    /// With the event id they are exact for (`Counted`).
    func unread(_ tx: (any StoreTransaction)?, userId: Int64, workspaceId: Int64) throws -> Counted<ThreadUnread> {
        try kept.value(for: Key(userId: userId, workspaceId: workspaceId), in: tx) { tx in
            try Counted.read(in: tx) { try tx.readMarks.threadUnread(userId: userId, workspaceId: workspaceId) }
        }
    }
}

/// A person's unread replies in the threads they follow, and how many of them mention them.
struct ThreadUnread: Sendable, Equatable {
    let replies: Int
    let mentions: Int
}
