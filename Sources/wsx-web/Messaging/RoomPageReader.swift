/// What a room's page reads from the database (or from memory).
struct RoomPageReads: Sendable {
    var sidebar: SidebarLists
    var messages: (page: MessagePage, parts: ListParts)?
    var lastRead: Int64 = 0
    /// Every message the reader saved (members only).
    var saved: Set<Int64> = []
    /// The members' markers of a DM or group conversation (its read receipts).
    var receipts: ReceiptMarkers?
}

/// Reads a room's page for one viewer (`RoomsController` renders it): the messages, the
/// reader's marker and the sidebar, from memory when nothing they show changed since they were
/// last read, else in one read transaction. Whole messages are read only for fragments not
/// rendered before.
struct RoomPageReader: Sendable {
    /// Whose reads wait for each other's when they miss together: a viewer's views of one page
    /// of a room (`SharedMisses`).
    private struct SharedKey: Hashable, Sendable {
        let userId: Int64, roomId: Int64?, workspaceId: Int64, anchor: MessageAnchor, editing: Int64?
    }

    let messages: MessageService
    let lists: MessageListRenderer
    let saved: SavedMessages
    let sidebar: SidebarSource

    /// `room` nil: a DM not started yet (the sidebar alone). A workspace member who has not
    /// joined a channel (`isMember` false) reads its messages too, without a marker or unread
    /// line and without reading them off (they have no membership).
    func read(room: Room?, isMember: Bool, userId: Int64, workspaceId: Int64, anchor: MessageAnchor, editing: Int64?,
              place: PagePlace) async throws -> RoomPageReads {
        let key = SharedKey(userId: userId, roomId: room?.id, workspaceId: workspaceId, anchor: anchor, editing: editing)
        return try await messages.database.queryKept(sharing: key) { [messages, lists, saved, sidebar] tx in
            var reads = RoomPageReads(sidebar: try sidebar.lists(tx, userId: userId, place: place))
            guard let roomId = room?.id else { return reads }
            let page = try messages.page(tx, roomId: roomId, anchor: anchor)
            reads.messages = (page, try lists.parts(for: page.messages, editing: editing) { ids in
                guard !ids.isEmpty else { return [] }
                guard let tx else { throw NotKeptInMemory() }
                return try tx.messages.rows(roomId: roomId, ids: ids)
            })
            if isMember {
                let markers = try messages.markers.markers(tx, userId: userId, workspaceId: workspaceId)
                reads.lastRead = markers[roomId]?.lastRead ?? 0
                reads.saved = try saved.ids(tx, userId: userId)
                if room?.kind != .channel { reads.receipts = try messages.receipts.markers(tx, roomId: roomId) }
            } else {
                reads.lastRead = .max
            }
            return reads
        }
    }
}
