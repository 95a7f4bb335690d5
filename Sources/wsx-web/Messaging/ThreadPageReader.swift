import GRDB

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
        try await database.readOffLoop { [lists, saved, sidebar] db in
            let page = try ThreadService.page(db, rootId: rootId, userId: userId, before: before)
            let read = { (ids: [Int64]) in try MessageService.rows(db, roomId: room.id!, ids: ids) }
            let rootParts = try lists.parts(for: Array(page.stamps.prefix(1)), editing: editing, read: read)
            let replyParts = try lists.parts(for: Array(page.stamps.dropFirst()), editing: editing, read: read)
            let root = try SQLiteMessageStore(db: db).collect(MessageService.rows(db, roomId: room.id!, ids: [rootId]), for: userId)
            return ThreadPageReads(page: page, rootParts: rootParts, replyParts: replyParts, saved: try saved.ids(SQLiteTransaction.reading(db), userId: userId),
                                   sidebar: try sidebar.lists(db, userId: userId, place: place), root: root.first)
        }
    }
}
