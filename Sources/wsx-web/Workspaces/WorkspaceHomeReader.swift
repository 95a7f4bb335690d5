/// Reads a workspace's home for one member: the rooms they are in, with each room's last
/// message and unread count, and their read markers (for the mention counts). The rooms are
/// kept per member and workspace until a commit changes something they were read from (a
/// post, a read, a rename: `ReadRegion`), so a second look, or a second tab, reads nothing.
struct WorkspaceHomeReader: Sendable {
    let database: AppDatabase
    let markers: ReadMarkers
    let kept: VersionedCache<Key, [RoomSummary]>

    struct Key: Hashable, Sendable {
        let userId: Int64, workspaceId: Int64
    }

    init(database: AppDatabase, clock: WallClock, markers: ReadMarkers) {
        (self.database, self.markers) = (database, markers)
        kept = VersionedCache("workspace homes", of: database, clock: clock, capacity: 1024)
    }

    /// From memory when nothing they show changed, else in one read off the event loop.
    func read(workspaceId: Int64, userId: Int64) async throws -> (rooms: [RoomSummary], markers: [Int64: RoomMarker]) {
        try await database.queryKept(sharing: Key(userId: userId, workspaceId: workspaceId)) { [kept, markers] tx in
            (try kept.value(for: Key(userId: userId, workspaceId: workspaceId), in: tx) { tx in
                try tx.rooms.summaries(workspaceId: workspaceId, userId: userId, reads: .lastMessages)
            }, try markers.markers(tx, userId: userId, workspaceId: workspaceId))
        }
    }
}
