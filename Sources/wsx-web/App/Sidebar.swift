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

/// A room the viewer is in, as lists show it: display name (a DM shows the other person),
/// its address, unread count, and for DMs the last message.
struct RoomSummary: Sendable {
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

/// Reads the rooms a person is in within a workspace, with exact unread counts (messages after
/// their marker, not their own), for the sidebar and the workspace home.
enum RoomDirectory {
    /// With `lastMessages` false, no last message per room (the sidebar shows none).
    static func rooms(_ db: Database, workspaceId: Int64, userId: Int64, lastMessages: Bool = true) throws -> [RoomSummary] {
        let lastColumns = lastMessages ? "last.body AS last_body, last.created_at AS last_at" : "NULL AS last_body, NULL AS last_at"
        let lastJoin = lastMessages
            ? "LEFT JOIN messages AS last ON last.id = (SELECT MAX(id) FROM messages WHERE messages.room_id = rooms.id AND in_timeline = 1)" : ""
        let rows = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT rooms.id, rooms.kind, rooms.name, rooms.dm_key, rooms.visibility, rooms.archived_at IS NOT NULL AS archived,
                   room_members.unread_count AS unread,
                   room_members.notify_level, users.notify_default, \(lastColumns)
            FROM rooms JOIN room_members ON room_members.room_id = rooms.id AND room_members.user_id = ?
            JOIN users ON users.id = room_members.user_id
            \(lastJoin)
            WHERE rooms.workspace_id = ?
            ORDER BY rooms.kind = 'channel' DESC, rooms.is_default DESC, rooms.name_key, rooms.id
            """), arguments: [userId, workspaceId])
        let partnerIds = rows.compactMap { row -> Int64? in
            guard (row["kind"] as String) == "dm", let key: String = row["dm_key"] else { return nil }
            return key.split(separator: ":").compactMap { Int64($0) }.first { $0 != userId } ?? userId
        }
        let partners = partnerIds.isEmpty ? [:] : try Dictionary(
            uniqueKeysWithValues: Row.fetchAll(db, sql: """
                SELECT id, nickname, avatar_file_id FROM users WHERE id IN (\(databaseQuestionMarks(count: partnerIds.count)))
                """, arguments: StatementArguments(partnerIds))
                .map { ($0["id"] as Int64, (nickname: $0["nickname"] as String, avatar: $0["avatar_file_id"] as Int64?)) })
        let statuses = try StatusService.current(db, of: Set(partnerIds), at: Date())
        let groups = try GroupRooms.members(db, of: rows.compactMap { row -> Int64? in
            (row["kind"] as String) == Room.Kind.group.rawValue ? row["id"] : nil
        })
        return rows.map { row in
            let id: Int64 = row["id"]
            let kind = Room.Kind(rawValue: row["kind"]) ?? .channel
            let isChannel = kind == .channel
            var name: String = row["name"]
            var url = Paths.channel(workspaceId, id)
            var avatarURL: String?
            var personId: Int64?
            if kind == .dm, let key: String = row["dm_key"] {
                let partner = key.split(separator: ":").compactMap { Int64($0) }.first { $0 != userId } ?? userId
                name = partners[partner]?.nickname ?? ""
                avatarURL = partners[partner]?.avatar.map { Paths.thumbnail($0) }
                url = Paths.directMessages(workspaceId, partner)
                personId = partner
            }
            let group = groups[id]
            if let group {
                name = GroupRooms.title(group, viewer: userId)
                url = Paths.group(workspaceId, id)
            }
            let lastBody: String? = row["last_body"]
            return RoomSummary(id: id, isChannel: isChannel, name: name, url: url, unread: row["unread"],
                               lastSnippet: lastBody.map { MessageText.snippet($0, length: 80) }, lastAt: row["last_at"],
                               avatarURL: avatarURL, personId: personId, status: personId.flatMap { statuses[$0]?.label },
                               isPrivate: (row["visibility"] as String) == "private", isArchived: row["archived"],
                               groupSize: group?.count, initial: AvatarFace.initial(name),
                               ownNotify: (row["notify_level"] as String?).flatMap(NotifyLevel.init(rawValue:)),
                               defaultNotify: NotifyLevel(rawValue: row["notify_default"] as String) ?? .standard)
        }
    }
}

/// The sidebar's lists: the person's workspaces and the rooms of the current one.
struct SidebarLists: Sendable {
    var workspaces: [SidebarWorkspace]
    var rooms: [SidebarRoom]
    /// Replies the person has not read in the threads they follow in the workspace.
    var threadsUnread = 0
    /// Those of them that mention the person (the rooms' own mention counts are on `rooms`).
    var threadMentions = 0
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
        try database.readKept { db in try lists(db, userId: userId, place: place) }
    }

    /// The sidebar's lists, from memory, or else read in a caller's read (`db` nil: memory only;
    /// the channel page reads them with its messages).
    func lists(_ db: Database?, userId: Int64, place: PagePlace) throws -> SidebarLists {
        let workspaceId = place.workspaceId
        let lists = try keptLists.value(for: Key(userId: userId, workspaceId: workspaceId), in: db) { db in
            try Self.read(db, userId: userId, workspaceId: workspaceId)
        }
        guard let workspaceId else { return SidebarLists(workspaces: lists.workspaces, rooms: []) }
        let markers = try markers.markers(db, userId: userId, workspaceId: workspaceId)
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
        let threads = try threadMarkers.unread(db, userId: userId, workspaceId: workspaceId)
        sidebar.threadsUnread = threads.replies
        sidebar.threadMentions = threads.mentions
        return sidebar
    }

    private static func read(_ db: Database, userId: Int64, workspaceId: Int64?) throws -> Kept {
        let workspaces = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT workspaces.id, workspaces.name FROM workspaces
            JOIN workspace_members ON workspace_members.workspace_id = workspaces.id
            WHERE workspace_members.user_id = ? ORDER BY workspaces.name_key, workspaces.id
            """), arguments: [userId]).map { row in
            SidebarWorkspace(id: row[0], name: row[1], url: Paths.workspace(row[0]), isCurrent: row[0] == workspaceId)
        }
        guard let workspaceId else { return Kept(workspaces: workspaces, rooms: []) }
        return Kept(workspaces: workspaces,
                    rooms: try RoomDirectory.rooms(db, workspaceId: workspaceId, userId: userId, lastMessages: false))
    }
}
