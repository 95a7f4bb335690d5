import GRDB

/// Each person's unread thread replies per workspace (the sidebar's Threads badge), as last
/// read, kept until a commit changes who follows what or how far they read, or room membership.
struct ThreadMarkers: Sendable {
    let kept: VersionedCache<Key, Int>

    struct Key: Hashable, Sendable {
        let userId: Int64, workspaceId: Int64
    }

    init(database: AppDatabase, clock: WallClock) {
        kept = VersionedCache(version: database.threadsVersion, clock: clock, capacity: 4096)
    }

    /// From memory, or else read in `db` (nil: memory only).
    func unreadTotal(_ db: Database?, userId: Int64, workspaceId: Int64) throws -> Int {
        try kept.value(for: Key(userId: userId, workspaceId: workspaceId), in: db) { db in
            try ThreadRecords.unreadTotal(db, userId: userId, workspaceId: workspaceId)
        }
    }
}
