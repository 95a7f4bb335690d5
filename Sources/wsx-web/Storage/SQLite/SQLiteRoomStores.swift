import Foundation
import GRDB

/// `RoomStore` on SQLite.
struct SQLiteRoomStore: RoomStore {
    let db: Database

    func memberRoom(id: Int64, _ access: WorkspaceAccess) throws -> Room {
        guard let room = try Room.fetchOne(db, key: id), room.workspaceId == access.workspaceId,
              try isMember(roomId: id, userId: access.userId)
        else { throw AppError.notFound }
        return room
    }

    func summaries(workspaceId: Int64, userId: Int64, reads: RoomSummaryReads) throws -> [RoomSummary] {
        try RoomDirectory.rooms(db, workspaceId: workspaceId, userId: userId, reads: reads)
    }

    func room(id: Int64) throws -> Room? {
        try Room.fetchOne(db, key: id)
    }

    func defaultRoom(workspaceId: Int64) throws -> Room? {
        try Room.filter(Room.CodingKeys.workspaceId == workspaceId && Room.CodingKeys.isDefault == true).fetchOne(db)
    }

    func conversation(workspaceId: Int64, kind: Room.Kind, key: String) throws -> Room? {
        try Room.fetchOne(db, sql: "SELECT * FROM rooms WHERE workspace_id = ? AND kind = ? AND dm_key = ? ORDER BY id DESC LIMIT 1",
                          arguments: [workspaceId, kind.rawValue, key])
    }

    func directRooms(workspaceId: Int64, of userId: Int64) throws -> [Room] {
        try Room.fetchAll(db, sql: """
            SELECT * FROM rooms WHERE workspace_id = ? AND kind = 'dm' AND (dm_key LIKE ? OR dm_key LIKE ?)
            """, arguments: [workspaceId, "\(userId):%", "%:\(userId)"])
    }

    func create(_ room: Room, members: [Int64], at now: Date) throws -> Room {
        let room = try room.inserted(db)
        for member in members {
            try RoomMember(roomId: room.id!, userId: member, joinedAt: now, lastReadMessageId: 0).insert(db)
        }
        return room
    }

    func isMember(roomId: Int64, userId: Int64) throws -> Bool {
        try RoomMember.fetchOne(db, key: ["room_id": roomId, "user_id": userId]) != nil
    }

    func memberCount(roomId: Int64) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM room_members WHERE room_id = ?", arguments: [roomId]) ?? 0
    }

    func memberIds(roomId: Int64) throws -> [Int64] {
        try Int64.fetchAll(db, sql: "SELECT user_id FROM room_members WHERE room_id = ?", arguments: [roomId])
    }

    func groupMembers(of roomIds: [Int64]) throws -> [Int64: [GroupRooms.Person]] {
        guard !roomIds.isEmpty else { return [:] }
        var found: [Int64: [GroupRooms.Person]] = [:]
        for row in try Row.fetchAll(db, sql: """
            SELECT room_members.room_id, users.id, users.nickname, users.avatar_file_id
            FROM room_members JOIN users ON users.id = room_members.user_id
            WHERE room_members.room_id IN (\(databaseQuestionMarks(count: roomIds.count)))
            ORDER BY users.nickname, users.id
            """, arguments: StatementArguments(roomIds)) {
            found[row[0], default: []].append(GroupRooms.Person(id: row[1], nickname: row[2], avatarFileId: row[3]))
        }
        return found
    }

    func addMember(roomId: Int64, userId: Int64, joinedAt now: Date, lastReadMessageId: Int64) throws {
        try RoomMember(roomId: roomId, userId: userId, joinedAt: now, lastReadMessageId: lastReadMessageId).insert(db)
    }

    func removeMembers(roomId: Int64, userIds: [Int64]) throws {
        try RoomMember.filter(RoomMember.CodingKeys.roomId == roomId && userIds.contains(RoomMember.CodingKeys.userId))
            .deleteAll(db)
    }

    func latestMessageId(roomId: Int64) throws -> Int64 {
        // During the migrations that make the first rooms, before messages exist.
        guard try db.tableExists("messages") else { return 0 }
        return try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM messages WHERE room_id = ?", arguments: [roomId]) ?? 0
    }

    func isArchived(roomId: Int64) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT archived_at IS NOT NULL FROM rooms WHERE id = ?"), arguments: [roomId]) ?? false
    }

    func allMemberships() throws -> [(roomId: Int64, userId: Int64)] {
        // Before the migrations made the table (a server opening an empty file reads this first).
        guard try db.tableExists("room_members") else { return [] }
        return try Row.fetchAll(db, sql: "SELECT room_id, user_id FROM room_members").map { (roomId: $0[0], userId: $0[1]) }
    }

    func advanceMarker(roomId: Int64, userId: Int64, to messageId: Int64) throws -> Bool {
        // Cached: every post and every read runs it.
        try db.cachedStatement(sql: """
            UPDATE room_members SET last_read_message_id = ? WHERE room_id = ? AND user_id = ? AND last_read_message_id < ?
            """).execute(arguments: [messageId, roomId, userId, messageId])
        return db.changesCount > 0
    }

    func setConversationKey(roomId: Int64, key: String) throws {
        try db.execute(sql: "UPDATE rooms SET dm_key = ? WHERE id = ?", arguments: [key, roomId])
    }

    func rooms(workspaceId: Int64) throws -> [Room] {
        try Room.filter(Room.CodingKeys.workspaceId == workspaceId).fetchAll(db)
    }

    func insert(_ room: Room) throws -> Room {
        try DuplicateKey.mapped { try room.inserted(db) }
    }

    func update(_ room: Room) throws {
        try DuplicateKey.mapped { try room.update(db) }
    }

    func delete(_ room: Room) throws {
        try room.delete(db)
        try MessageEventScrub.roomsDeleted(db, rooms: [room.id!])
    }

    func isChannelNameTaken(workspaceId: Int64, nameKey: String, except: Int64?) throws -> Bool {
        var request = Room.filter(Room.CodingKeys.workspaceId == workspaceId && Room.CodingKeys.kind == "channel"
                                  && Room.CodingKeys.nameKey == nameKey)
        if let except { request = request.filter(Room.CodingKeys.id != except) }
        return try request.fetchCount(db) > 0
    }

    func ownedChannelCount(workspaceId: Int64, userId: Int64) throws -> Int {
        try Room.filter(Room.CodingKeys.workspaceId == workspaceId && Room.CodingKeys.kind == "channel"
                        && Room.CodingKeys.ownerId == userId).fetchCount(db)
    }

    func channel(id: Int64, workspaceId: Int64, viewer userId: Int64) throws -> (room: Room, memberCount: Int, isMember: Bool)? {
        // The channel page asks this on every visit not kept: cached statements skip SQL
        // generation and preparation.
        guard let room = try Room.fetchOne(db.cachedStatement(sql: "SELECT * FROM rooms WHERE id = ?"), arguments: [id]),
              room.workspaceId == workspaceId, room.kind == .channel
        else { return nil }
        let count = try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM room_members WHERE room_id = ?"),
                                     arguments: [id]) ?? 0
        let isMember = try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM room_members WHERE room_id = ? AND user_id = ?)"),
            arguments: [id, userId]) ?? false
        return (room: room, memberCount: count, isMember: isMember)
    }

    func channelListings(workspaceId: Int64, userId: Int64) throws -> [ChannelService.Listing] {
        try ChannelService.Listing.fetchAll(db, sql: """
            SELECT * FROM (
                SELECT rooms.id, rooms.name, rooms.description, rooms.is_default, rooms.visibility, rooms.name_key,
                       (SELECT COUNT(*) FROM room_members WHERE room_members.room_id = rooms.id) AS member_count,
                       EXISTS (SELECT 1 FROM room_members WHERE room_members.room_id = rooms.id AND room_members.user_id = ?) AS joined
                FROM rooms WHERE rooms.workspace_id = ? AND rooms.kind = 'channel')
            WHERE visibility = 'public' OR joined
            ORDER BY is_default DESC, name_key, id
            """, arguments: [userId, workspaceId])
    }

    func privateChannelListings(workspaceId: Int64, userId: Int64) throws -> [ChannelService.Listing] {
        try ChannelService.Listing.fetchAll(db, sql: """
            SELECT rooms.id, rooms.name, '' AS description, rooms.is_default, rooms.visibility,
                   (SELECT COUNT(*) FROM room_members WHERE room_members.room_id = rooms.id) AS member_count,
                   EXISTS (SELECT 1 FROM room_members WHERE room_members.room_id = rooms.id AND room_members.user_id = ?) AS joined
            FROM rooms WHERE rooms.workspace_id = ? AND rooms.kind = 'channel' AND rooms.visibility = 'private'
            ORDER BY rooms.name_key, rooms.id
            """, arguments: [userId, workspaceId])
    }

    func messageCount(roomId: Int64) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM messages WHERE room_id = ?", arguments: [roomId]) ?? 0
    }

    func memberNames(roomId: Int64) throws -> [(id: Int64, nickname: String)] {
        try Row.fetchAll(db, sql: """
            SELECT users.id, users.nickname FROM room_members JOIN users ON users.id = room_members.user_id
            WHERE room_members.room_id = ? ORDER BY users.nickname, users.id
            """, arguments: [roomId]).map { row in (id: row["id"] as Int64, nickname: row["nickname"] as String) }
    }
}

/// A channel of the browse page is read by column name (`SQLiteRoomStore.channelListings`).
extension ChannelService.Listing: FetchableRecord {}

/// `WorkspaceStore` on SQLite.
struct SQLiteWorkspaceStore: WorkspaceStore {
    let db: Database

    func isMember(workspaceId: Int64, userId: Int64) throws -> Bool {
        try WorkspaceMember.fetchOne(db, key: ["workspace_id": workspaceId, "user_id": userId]) != nil
    }

    func memberCount(workspaceId: Int64, among userIds: Set<Int64>) throws -> Int {
        guard !userIds.isEmpty else { return 0 }
        return try Int.fetchOne(db, sql: """
            SELECT COUNT(*) FROM workspace_members WHERE workspace_id = ? AND user_id IN (\(databaseQuestionMarks(count: userIds.count)))
            """, arguments: StatementArguments([workspaceId] + Array(userIds))) ?? 0
    }

    func member(workspaceId: Int64, userId: Int64) throws -> User? {
        guard try isMember(workspaceId: workspaceId, userId: userId) else { return nil }
        return try User.fetchOne(db, key: userId)
    }

    func listed(userId: Int64) throws -> [(id: Int64, name: String)] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT workspaces.id, workspaces.name FROM workspaces
            JOIN workspace_members ON workspace_members.workspace_id = workspaces.id
            WHERE workspace_members.user_id = ? ORDER BY workspaces.name_key, workspaces.id
            """), arguments: [userId]).map { (id: $0[0], name: $0[1]) }
    }

    func access(workspaceId: Int64, userId: Int64) throws -> WorkspaceAccess? {
        // Every page inside a workspace asks this: cached statements skip SQL generation and
        // preparation.
        guard let member = try WorkspaceMember.fetchOne(
                db.cachedStatement(sql: "SELECT * FROM workspace_members WHERE workspace_id = ? AND user_id = ?"),
                arguments: [workspaceId, userId]),
              let workspace = try Workspace.fetchOne(db.cachedStatement(sql: "SELECT * FROM workspaces WHERE id = ?"),
                                                     arguments: [workspaceId])
        else { return nil }
        return WorkspaceAccess(workspace: workspace, role: member.role, userId: userId)
    }

    func workspace(id: Int64) throws -> Workspace? {
        try Workspace.fetchOne(db, key: id)
    }

    func workspaces(of userId: Int64) throws -> [Workspace] {
        try Workspace.fetchAll(db, sql: """
            SELECT workspaces.* FROM workspaces JOIN workspace_members ON workspace_members.workspace_id = workspaces.id
            WHERE workspace_members.user_id = ? ORDER BY workspaces.name_key, workspaces.id
            """, arguments: [userId])
    }

    func sharedWorkspaces(of viewerId: Int64, with otherId: Int64) throws -> [Workspace] {
        try Workspace.fetchAll(db, sql: """
            SELECT workspaces.* FROM workspaces
            JOIN workspace_members AS viewer ON viewer.workspace_id = workspaces.id AND viewer.user_id = ?
            JOIN workspace_members AS other ON other.workspace_id = workspaces.id AND other.user_id = ?
            ORDER BY workspaces.name_key, workspaces.id
            """, arguments: [viewerId, otherId])
    }

    func isNameTaken(ownerId: Int64, nameKey: String, except: Int64?) throws -> Bool {
        var request = Workspace.filter(Workspace.CodingKeys.ownerId == ownerId && Workspace.CodingKeys.nameKey == nameKey)
        if let except { request = request.filter(Workspace.CodingKeys.id != except) }
        return try request.fetchCount(db) > 0
    }

    func insert(_ workspace: Workspace) throws -> Workspace {
        try DuplicateKey.mapped { try workspace.inserted(db) }
    }

    func update(_ workspace: Workspace) throws {
        try DuplicateKey.mapped { try workspace.update(db) }
    }

    func addMember(workspaceId: Int64, userId: Int64, role: WorkspaceRole, joinedAt now: Date) throws {
        try WorkspaceMember(workspaceId: workspaceId, userId: userId, role: role, joinedAt: now).insert(db)
    }

    func passOwnerRole(workspaceId: Int64, from oldOwnerId: Int64, to newOwnerId: Int64) throws {
        try db.execute(sql: "UPDATE workspace_members SET role = 'member' WHERE workspace_id = ? AND user_id = ?",
                       arguments: [workspaceId, oldOwnerId])
        try db.execute(sql: "UPDATE workspace_members SET role = 'owner' WHERE workspace_id = ? AND user_id = ?",
                       arguments: [workspaceId, newOwnerId])
    }

    func contents(workspaceId: Int64) throws -> (channels: Int, members: Int, messages: Int) {
        let channels = try Room.filter(Room.CodingKeys.workspaceId == workspaceId && Room.CodingKeys.kind == "channel")
            .fetchCount(db)
        let members = try WorkspaceMember.filter(WorkspaceMember.CodingKeys.workspaceId == workspaceId).fetchCount(db)
        let messages = try db.tableExists("messages")
            ? try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM messages JOIN rooms ON rooms.id = messages.room_id WHERE rooms.workspace_id = ?",
                               arguments: [workspaceId]) ?? 0
            : 0
        return (channels: channels, members: members, messages: messages)
    }

    func delete(_ workspace: Workspace, rooms: [Int64]) throws {
        // Rooms, members, invitations and the audit log go with it (ON DELETE CASCADE).
        try workspace.delete(db)
        try MessageEventScrub.roomsDeleted(db, rooms: rooms)
    }

    func overview() throws -> [AccountAdministration.WorkspaceSummary] {
        let rows = try Row.fetchAll(db, sql: """
            SELECT workspaces.id, workspaces.name, workspaces.owner_id, owner.nickname AS owner_nickname,
                   owner.email AS owner_email, owner.deactivated_at AS owner_deactivated,
                   (SELECT COUNT(*) FROM workspace_members WHERE workspace_id = workspaces.id) AS member_count,
                   (SELECT COUNT(*) FROM messages JOIN rooms ON rooms.id = messages.room_id
                    WHERE rooms.workspace_id = workspaces.id AND messages.deleted_at IS NULL) AS message_count,
                   (SELECT COALESCE(SUM(files.size), 0) FROM files WHERE files.id IN (
                        SELECT message_files.file_id FROM message_files JOIN messages ON messages.id = message_files.message_id
                        JOIN rooms ON rooms.id = messages.room_id WHERE rooms.workspace_id = workspaces.id)) AS file_bytes
            FROM workspaces JOIN users AS owner ON owner.id = workspaces.owner_id
            ORDER BY owner.deactivated_at IS NULL, workspaces.id
            """)
        return try rows.map { row in
            let id: Int64 = row["id"], ownerId: Int64 = row["owner_id"]
            let successors = try Row.fetchAll(db, sql: """
                SELECT users.id, users.nickname FROM workspace_members JOIN users ON users.id = workspace_members.user_id
                WHERE workspace_members.workspace_id = ? AND users.id <> ? AND users.deactivated_at IS NULL
                  AND users.password_hash <> '' ORDER BY users.nickname LIMIT 500
                """, arguments: [id, ownerId]).map { (id: $0["id"] as Int64, nickname: $0["nickname"] as String) }
            return AccountAdministration.WorkspaceSummary(
                id: id, name: row["name"], ownerId: ownerId, ownerNickname: row["owner_nickname"],
                ownerEmail: row["owner_email"], ownerDeactivated: (row["owner_deactivated"] as Date?) != nil,
                members: row["member_count"], messages: row["message_count"], fileBytes: row["file_bytes"],
                successors: successors)
        }
    }
}

// Code that still holds a GRDB connection reaches the same stores through these.

extension Workspace {
    /// The channel every member is in; the audience of workspace-wide events.
    func defaultRoom(_ db: Database) throws -> Room {
        try defaultRoom(SQLiteTransaction.reading(db))
    }
}

extension WorkspaceAccess {
    /// `find(_:workspaceId:userId:)` in `db`, for code still holding a GRDB connection.
    static func find(_ db: Database, workspaceId: Int64, userId: Int64) throws -> WorkspaceAccess {
        try find(SQLiteTransaction.reading(db), workspaceId: workspaceId, userId: userId)
    }
}

extension GroupRooms {
    static func members(_ db: Database, of roomIds: some Collection<Int64>) throws -> [Int64: [Person]] {
        try SQLiteRoomStore(db: db).groupMembers(of: Array(roomIds))
    }

    static func rememberMembers(_ db: Database, of room: Room) throws {
        try rememberMembers(SQLiteTransaction(db, outbox: nil), of: room)
    }
}

extension DirectRooms {
    static func restore(_ db: Database, workspaceId: Int64, userId: Int64, at now: Date, outbox: EventOutbox) throws {
        try restore(SQLiteTransaction(db, outbox: outbox), workspaceId: workspaceId, userId: userId, at: now,
                    membership: RoomMembership())
    }
}
