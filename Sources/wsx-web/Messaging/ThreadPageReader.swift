/// What a thread's page shows from the database, read in one transaction: the page of replies,
/// the root and the replies ready to list, the viewer's saved messages, the sidebar, and the
/// root as collected lists show it (its room's label).
struct ThreadPageReads: Sendable {
    let page: ThreadService.Page
    let rootParts: ListParts
    let replyParts: ListParts
    let saved: Set<Int64>
    let sidebar: SidebarLists
    let root: CollectedMessage?
}

/// Reads a thread's page for one viewer (`ThreadsController` renders it).
struct ThreadPageReader: Sendable {
    let database: AppDatabase
    let lists: MessageListRenderer
    let saved: SavedMessages
    let sidebar: SidebarSource

    /// The replies before `before` (the newest without), with `editing`'s whole row for its form.
    func read(rootId: Int64, room: Room, userId: Int64, before: Int64?, editing: Int64?,
              place: PagePlace) async throws -> ThreadPageReads {
        try await database.queryOffLoop { [lists, saved, sidebar] tx in
            let page = try ThreadService.page(tx, rootId: rootId, userId: userId, before: before)
            let read = { (ids: [Int64]) in try tx.messages.rows(roomId: room.id!, ids: ids) }
            let rootParts = try lists.parts(for: Array(page.stamps.prefix(1)), editing: editing, read: read)
            let replyParts = try lists.parts(for: Array(page.stamps.dropFirst()), editing: editing, read: read)
            let root = try tx.messages.collect(tx.messages.rows(roomId: room.id!, ids: [rootId]), for: userId)
            return ThreadPageReads(page: page, rootParts: rootParts, replyParts: replyParts, saved: try saved.ids(tx, userId: userId),
                                   sidebar: try sidebar.lists(tx, userId: userId, place: place), root: root.first)
        }
    }
}
