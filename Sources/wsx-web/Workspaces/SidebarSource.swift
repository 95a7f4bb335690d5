import Foundation
import Views

/// Reads what the sidebar lists for a signed-in person: their workspaces and, inside one, the
/// rooms they are in.
struct SidebarSource: Sendable {
    let database: AppDatabase
    /// Where the badges' counts come from.
    let markers: ReadMarkers
    let threadMarkers: ThreadMarkers
    /// The lists without unread counts, by person and workspace, kept until memberships, rooms
    /// or names change. The counts, which every post moves, are read each time.
    let keptLists: VersionedCache<Key, Kept>

    struct Key: Hashable, Sendable {
        let userId: Int64, workspaceId: Int64?
    }

    struct Kept: Sendable {
        let workspaces: [SidebarWorkspace]
        let rooms: [RoomSummary]
    }

    init(database: AppDatabase, clock: WallClock, markers: ReadMarkers, threadMarkers: ThreadMarkers) {
        (self.database, self.markers, self.threadMarkers) = (database, markers, threadMarkers)
        keptLists = VersionedCache("sidebar lists", of: database, clock: clock, capacity: 4096)
    }

    func load(userId: Int64, place: PagePlace) async throws -> SidebarLists {
        try await database.queryKept(sharing: Key(userId: userId, workspaceId: place.workspaceId)) { tx in
            try lists(tx, userId: userId, place: place)
        }
    }

    /// The sidebar's lists, from memory, or else read in a caller's read (`tx` nil: memory only;
    /// the channel page reads them with its messages).
    func lists(_ tx: (any StoreTransaction)?, userId: Int64, place: PagePlace) throws -> SidebarLists {
        let workspaceId = place.workspaceId
        let lists = try keptLists.value(for: Key(userId: userId, workspaceId: workspaceId), in: tx) { tx in
            try Self.read(tx, userId: userId, workspaceId: workspaceId)
        }
        guard let workspaceId else { return SidebarLists(workspaces: lists.workspaces, rooms: []) }
        let counted = try markers.counted(tx, userId: userId, workspaceId: workspaceId)
        let markers = counted.value
        var sidebar = SidebarLists(workspaces: lists.workspaces, rooms: lists.rooms.map { room in
            var listed = SidebarRoom(id: room.id, name: room.name, url: room.url, isCurrent: room.id == place.roomId,
                                     unread: markers[room.id]?.unread ?? 0, mentions: markers[room.id]?.mentions ?? 0,
                                     isDM: !room.isChannel, avatarURL: room.avatarURL,
                                     notify: room.ownNotify ?? room.defaultNotify, hasOwnNotify: room.ownNotify != nil,
                                     initial: room.initial)
            listed.personId = room.personId
            listed.status = room.status
            listed.isPrivate = room.isPrivate
            listed.isArchived = room.isArchived
            if let size = room.groupSize {
                listed.isGroup = true
                listed.initial = String(size)
            }
            return listed
        })
        let threads = try threadMarkers.unread(tx, userId: userId, workspaceId: workspaceId)
        sidebar.threadsUnread = threads.value.replies
        sidebar.threadMentions = threads.value.mentions
        (sidebar.roomsCountedThrough, sidebar.threadsCountedThrough) = (counted.throughEventId, threads.throughEventId)
        return sidebar
    }

    private static func read(_ tx: any StoreTransaction, userId: Int64, workspaceId: Int64?) throws -> Kept {
        let workspaces = try tx.workspaces.listed(userId: userId).map { listed in
            SidebarWorkspace(id: listed.id, name: listed.name, url: Paths.workspace(listed.id), isCurrent: listed.id == workspaceId)
        }
        guard let workspaceId else { return Kept(workspaces: workspaces, rooms: []) }
        return Kept(workspaces: workspaces,
                    rooms: try tx.rooms.summaries(workspaceId: workspaceId, userId: userId, reads: .roomsOnly))
    }
}
