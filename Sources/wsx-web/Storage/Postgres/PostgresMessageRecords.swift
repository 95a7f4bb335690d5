import Foundation
import PostgresNIO

extension MessageRow {
    /// A message as lists show it, from a row of `MessageRow.columns` (they read the same on
    /// PostgreSQL), without its files.
    init(postgres row: PostgresRow) throws {
        let cells = try row.decode((Int64, Int64, Int64?, String?, Int64?, String, String, Date, Date?, Int64?, Bool, Bool, Bool, Bool).self)
        self.init(id: cells.0, roomId: cells.1, authorId: cells.2, authorNickname: cells.3, authorAvatarId: cells.4, body: cells.5,
                  bodyHtml: cells.6, createdAt: cells.7, editedAt: cells.8, threadRootId: cells.9, inTimeline: cells.10,
                  isDeleted: cells.11, authorDeactivated: cells.12, attachments: [])
        authorIsBot = cells.13
    }
}

extension MessageStamp {
    /// A message's stamp from a row of `MessageStamp.columns`.
    init(postgres row: PostgresRow) throws {
        let cells = try row.decode((Int64, Int64?, String?, Int64?, Date, Date?, Bool, Bool).self)
        (id, authorId, authorNickname, authorAvatarId) = (cells.0, cells.1, cells.2, cells.3)
        (createdAt, editedAt, isDeleted, authorDeactivated) = (cells.4, cells.5, cells.6, cells.7)
    }
}

extension Message {
    /// The columns `init(postgres:)` reads, each qualified by `messages.`.
    static let postgresColumns = """
        messages.id, messages.room_id, messages.author_id, messages.body, messages.body_html, messages.created_at,
        messages.edited_at, messages.thread_root_id, messages.in_timeline, messages.deleted_at
        """

    /// A message from a row of `postgresColumns`.
    init(postgres row: PostgresRow) throws {
        let cells = try row.decode((Int64, Int64, Int64?, String, String, Date, Date?, Int64?, Bool, Date?).self)
        self.init(id: cells.0, roomId: cells.1, authorId: cells.2, body: cells.3, bodyHtml: cells.4, createdAt: cells.5,
                  editedAt: cells.6, threadRootId: cells.7, inTimeline: cells.8, deletedAt: cells.9)
    }
}
