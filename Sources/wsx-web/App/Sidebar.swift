import Foundation
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

/// A room the viewer is in, as lists show it: display name (a DM shows the other person),
/// its address, unread count, and for DMs the last message.
struct RoomSummary: Sendable, Equatable {
    let id: Int64
    let isChannel: Bool
    let name: String
    let url: String
    let unread: Int
    let lastSnippet: String?
    let lastAt: Date?
    /// A DM's person's photo, when they have one.
    var avatarURL: String? = nil
    /// A DM's person, and their custom status as shown.
    var personId: Int64? = nil
    var status: String? = nil
    var isPrivate = false
    var isArchived = false
    /// A group conversation's size (its name is the other members').
    var groupSize: Int? = nil
    /// The letter its avatar shows (a DM's person), worked out once with the lists.
    var initial = ""
    /// The viewer's own notification level for the room, if they chose one, and their default.
    var ownNotify: NotifyLevel? = nil
    var defaultNotify: NotifyLevel = .standard
}

/// The sidebar's lists: the person's workspaces and the rooms of the current one.
struct SidebarLists: Sendable {
    var workspaces: [SidebarWorkspace]
    var rooms: [SidebarRoom]
    /// Replies the person has not read in the threads they follow in the workspace.
    var threadsUnread = 0
    /// Those of them that mention the person (the rooms' own mention counts are on `rooms`).
    var threadMentions = 0
    /// The newest event the rooms' counts include, and the threads' (`Counted`).
    var roomsCountedThrough: Int64 = 0
    var threadsCountedThrough: Int64 = 0
    /// The Mentions badge: unread mentions in the rooms that are not archived, and in threads.
    var mentionsUnread: Int { rooms.reduce(threadMentions) { $0 + ($1.isArchived ? 0 : $1.mentions) } }

    /// Shows `roomId` as read: the room's page ends with its newest message, which its script
    /// posts as read.
    mutating func markRead(_ roomId: Int64) {
        for index in rooms.indices where rooms[index].id == roomId {
            rooms[index].unread = 0
            rooms[index].mentions = 0
        }
    }
}
