import Foundation
import GRDB
import Views

/// Where in the site a page is, so the sidebar can mark it.
enum PagePlace: Sendable {
    case elsewhere
    case workspace(Int64)
    case room(workspace: Int64, room: Int64)

    var workspaceId: Int64? {
        switch self {
        case .elsewhere: nil
        case .workspace(let id), .room(let id, _): id
        }
    }

    var roomId: Int64? {
        if case .room(_, let room) = self { return room }
        return nil
    }
}

/// Reads what the sidebar lists for a signed-in person: their workspaces and, inside one, the
/// rooms they are in.
struct SidebarSource: Sendable {
    let database: AppDatabase

    func load(userId: Int64, place: PagePlace) async throws -> (workspaces: [SidebarWorkspace], rooms: [SidebarRoom]) {
        try await database.writer.read { db in
            let workspaces = try Row.fetchAll(db, sql: """
                SELECT workspaces.id, workspaces.name FROM workspaces
                JOIN workspace_members ON workspace_members.workspace_id = workspaces.id
                WHERE workspace_members.user_id = ? ORDER BY workspaces.name_key, workspaces.id
                """, arguments: [userId]).map { row in
                SidebarWorkspace(id: row["id"], name: row["name"], isCurrent: row["id"] == place.workspaceId)
            }
            guard let workspaceId = place.workspaceId else { return (workspaces, []) }
            let rooms = try Row.fetchAll(db, sql: """
                SELECT rooms.id, rooms.name FROM rooms JOIN room_members ON room_members.room_id = rooms.id
                WHERE rooms.workspace_id = ? AND room_members.user_id = ? AND rooms.kind = 'channel'
                ORDER BY rooms.is_default DESC, rooms.name_key, rooms.id
                """, arguments: [workspaceId, userId]).map { row in
                let id: Int64 = row["id"]
                return SidebarRoom(id: id, name: row["name"], url: "/w/\(workspaceId)/c/\(id)", isCurrent: id == place.roomId)
            }
            return (workspaces, rooms)
        }
    }
}
