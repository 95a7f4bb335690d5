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

    func summaries(workspaceId: Int64, userId: Int64, lastMessages: Bool) throws -> [RoomSummary] {
        try RoomDirectory.rooms(db, workspaceId: workspaceId, userId: userId, lastMessages: lastMessages)
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
}

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
}

// Code that still holds a GRDB connection reaches the same stores through these.

extension Workspace {
    /// The channel every member is in; the audience of workspace-wide events.
    func defaultRoom(_ db: Database) throws -> Room {
        try defaultRoom(SQLiteTransaction.reading(db))
    }
}

extension RoomMembership {
    func add(_ db: Database, room: Room, users: [Int64], at now: Date) throws {
        try add(SQLiteTransaction(db, outbox: outbox), room: room, users: users, at: now)
    }

    func remove(_ db: Database, room: Room, users: [Int64]) throws {
        try remove(SQLiteTransaction(db, outbox: outbox), room: room, users: users)
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
                    membership: RoomMembership(outbox: outbox))
    }
}
