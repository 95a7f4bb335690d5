import Foundation
import GRDB
import Views

/// The messages that mentioned a person, for their Mentions view: newest first, only in rooms
/// of the workspace they are still in.
struct MentionList: Sendable {
    let database: AppDatabase

    /// A mention with what the view shows of its room.
    struct Entry: Sendable {
        let message: MessageRow
        let room: Room
        /// The other person of a DM, by name.
        let partnerName: String?
    }

    func recent(userId: Int64, workspaceId: Int64, limit: Int = 50) async throws -> [Entry] {
        try database.read { db in
            let rows = try MessageRow.fetchAll(db, sql: """
                SELECT \(MessageRow.columns)
                FROM mentions
                JOIN messages ON messages.id = mentions.message_id
                JOIN rooms ON rooms.id = messages.room_id AND rooms.workspace_id = ?
                JOIN room_members ON room_members.room_id = rooms.id AND room_members.user_id = mentions.user_id
                LEFT JOIN users ON users.id = messages.author_id
                WHERE mentions.user_id = ?
                ORDER BY mentions.message_id DESC LIMIT ?
                """, arguments: [workspaceId, userId, limit])
            let rooms = try Room.fetchAll(db, keys: Set(rows.map(\.roomId))).reduce(into: [Int64: Room]()) { $0[$1.id!] = $1 }
            // The other person of each DM, by name, in one read.
            let partners = Set(rooms.values.filter { $0.kind == .dm }.map { DirectRooms.partnerId(of: $0, for: userId) })
            let names = try User.fetchAll(db, keys: partners).reduce(into: [Int64: String]()) { $0[$1.id!] = $1.nickname }
            return rows.compactMap { row in
                guard let room = rooms[row.roomId] else { return nil }
                let partner = room.kind == .dm ? names[DirectRooms.partnerId(of: room, for: userId)] : nil
                return Entry(message: row, room: room, partnerName: partner)
            }
        }
    }
}
