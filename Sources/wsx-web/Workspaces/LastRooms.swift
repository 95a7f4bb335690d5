import Foundation
import GRDB
import Synchronization

/// Where each person was: the room they viewed last (`last_rooms`), where signing in and `/`
/// take them, as Slack and KakaoWork open where one left off. A view of the same room again
/// writes nothing (remembered here); a switch writes one row, which no cache of pages counts.
final class LastRooms: Sendable {
    private let database: AppDatabase
    private let known = Mutex<[Int64: Int64]>([:])

    init(database: AppDatabase) {
        self.database = database
    }

    /// Notes that `userId` viewed `roomId`. A write that fails (a full disk) costs only where
    /// the next sign-in opens, never the page being viewed.
    func viewed(roomId: Int64, userId: Int64) async {
        guard known.withLock({ $0[userId] }) != roomId else { return }
        do {
            try await database.writer.write { db in
                try db.cachedStatement(sql: "INSERT INTO last_rooms (user_id, room_id) VALUES (?, ?) ON CONFLICT (user_id) DO UPDATE SET room_id = excluded.room_id")
                    .execute(arguments: [userId, roomId])
            }
            known.withLock { $0[userId] = roomId }
        } catch {}
    }

    /// Where `userId` starts: the last room they viewed while they may still read it, else the
    /// default channel of the workspace they joined first, else the list of workspaces (to
    /// create or join one).
    func start(userId: Int64) throws -> String {
        try database.read { db in
            if let row = try Row.fetchOne(db, sql: """
                SELECT rooms.* FROM last_rooms
                JOIN rooms ON rooms.id = last_rooms.room_id
                JOIN workspace_members ON workspace_members.workspace_id = rooms.workspace_id
                    AND workspace_members.user_id = last_rooms.user_id
                WHERE last_rooms.user_id = ? AND (
                    EXISTS (SELECT 1 FROM room_members WHERE room_members.room_id = rooms.id
                            AND room_members.user_id = last_rooms.user_id)
                    OR (rooms.kind = 'channel' AND rooms.visibility = 'public'))
                """, arguments: [userId]) {
                return try Room(row: row).path(for: userId)
            }
            if let row = try Row.fetchOne(db, sql: """
                SELECT rooms.* FROM workspace_members
                JOIN rooms ON rooms.workspace_id = workspace_members.workspace_id AND rooms.is_default
                WHERE workspace_members.user_id = ?
                ORDER BY workspace_members.joined_at, workspace_members.workspace_id LIMIT 1
                """, arguments: [userId]) {
                return try Room(row: row).path(for: userId)
            }
            return Paths.workspaces()
        }
    }
}
