import Foundation
import PostgresNIO
import Views

/// `RoomStore` on PostgreSQL: the rows of `rooms` and `room_members`, whose unread counts the
/// schema's triggers keep (as SQLite's do). Text is ordered `COLLATE "C"`, by its bytes, as
/// SQLite orders it.
struct PostgresRoomStore: RoomStore {
    let session: PostgresSession

    func memberRoom(id: Int64, _ access: WorkspaceAccess) throws -> Room {
        guard let room = try session.run("""
            SELECT \(unescaped: Room.postgresColumns) FROM rooms
            JOIN room_members ON room_members.room_id = rooms.id AND room_members.user_id = \(access.userId)
            WHERE rooms.id = \(id) AND rooms.workspace_id = \(access.workspaceId)
            """).first.map(Room.init(postgres:))
        else { throw AppError.notFound }
        return room
    }

    func summaries(workspaceId: Int64, userId: Int64, reads: RoomSummaryReads) throws -> [RoomSummary] {
        try PostgresRoomDirectory(session: session, workspaceId: workspaceId, userId: userId).summaries(reads: reads)
    }

    func room(id: Int64) throws -> Room? {
        try session.run("SELECT \(unescaped: Room.postgresColumns) FROM rooms WHERE id = \(id)").first.map(Room.init(postgres:))
    }

    func defaultRoom(workspaceId: Int64) throws -> Room? {
        try session.run("""
            SELECT \(unescaped: Room.postgresColumns) FROM rooms WHERE workspace_id = \(workspaceId) AND is_default
            """).first.map(Room.init(postgres:))
    }

    func conversation(workspaceId: Int64, kind: Room.Kind, key: String) throws -> Room? {
        try session.run("""
            SELECT \(unescaped: Room.postgresColumns) FROM rooms
            WHERE workspace_id = \(workspaceId) AND kind = \(kind.rawValue) AND dm_key = \(key)
            ORDER BY id DESC LIMIT 1
            """).first.map(Room.init(postgres:))
    }

    func directRooms(workspaceId: Int64, of userId: Int64) throws -> [Room] {
        // A pair's key is "smaller:larger": the person is its first id or its last. By key, as
        // SQLite answers (its plan walks the index of the pairs' keys).
        try session.run("""
            SELECT \(unescaped: Room.postgresColumns) FROM rooms
            WHERE workspace_id = \(workspaceId) AND kind = 'dm' AND (dm_key LIKE \("\(userId):%") OR dm_key LIKE \("%:\(userId)"))
            ORDER BY dm_key COLLATE "C"
            """).map(Room.init(postgres:))
    }

    func create(_ room: Room, members: [Int64], at now: Date) throws -> Room {
        let created = try insertRow(room)
        try session.run("""
            INSERT INTO room_members (room_id, user_id, joined_at, last_read_message_id)
            SELECT \(created.id), member, \(now), 0 FROM unnest(\(members)) AS member
            """)
        return created
    }

    func isMember(roomId: Int64, userId: Int64) throws -> Bool {
        try !session.run("SELECT 1 FROM room_members WHERE room_id = \(roomId) AND user_id = \(userId)").isEmpty
    }

    func memberCount(roomId: Int64) throws -> Int {
        try session.run("SELECT COUNT(*) FROM room_members WHERE room_id = \(roomId)")[0].decode(Int.self)
    }

    func memberIds(roomId: Int64) throws -> [Int64] {
        try session.run("SELECT user_id FROM room_members WHERE room_id = \(roomId) ORDER BY user_id").map { try $0.decode(Int64.self) }
    }

    func groupMembers(of roomIds: [Int64]) throws -> [Int64: [GroupRooms.Person]] {
        guard !roomIds.isEmpty else { return [:] }
        var found: [Int64: [GroupRooms.Person]] = [:]
        for row in try session.run("""
            SELECT room_members.room_id, users.id, users.nickname, users.avatar_file_id
            FROM room_members JOIN users ON users.id = room_members.user_id
            WHERE room_members.room_id = ANY(\(roomIds))
            ORDER BY users.nickname COLLATE "C", users.id
            """) {
            let (roomId, id, nickname, avatarFileId) = try row.decode((Int64, Int64, String, Int64?).self)
            found[roomId, default: []].append(GroupRooms.Person(id: id, nickname: nickname, avatarFileId: avatarFileId))
        }
        return found
    }

    func addMember(roomId: Int64, userId: Int64, joinedAt now: Date, lastReadMessageId: Int64) throws {
        try session.run("""
            INSERT INTO room_members (room_id, user_id, joined_at, last_read_message_id)
            VALUES (\(roomId), \(userId), \(now), \(lastReadMessageId))
            """)
    }

    func removeMembers(roomId: Int64, userIds: [Int64]) throws {
        try session.run("DELETE FROM room_members WHERE room_id = \(roomId) AND user_id = ANY(\(userIds))")
    }

    func latestMessageId(roomId: Int64) throws -> Int64 {
        try session.run("SELECT COALESCE(MAX(id), 0) FROM messages WHERE room_id = \(roomId)")[0].decode(Int64.self)
    }

    func isArchived(roomId: Int64) throws -> Bool {
        try session.run("SELECT archived_at IS NOT NULL FROM rooms WHERE id = \(roomId)").first?.decode(Bool.self) ?? false
    }

    func allMemberships() throws -> [(roomId: Int64, userId: Int64)] {
        try session.run("SELECT room_id, user_id FROM room_members ORDER BY room_id, user_id").map { row in
            let (roomId, userId) = try row.decode((Int64, Int64).self)
            return (roomId: roomId, userId: userId)
        }
    }

    func advanceMarker(roomId: Int64, userId: Int64, to messageId: Int64) throws -> Bool {
        try !session.run("""
            UPDATE room_members SET last_read_message_id = \(messageId)
            WHERE room_id = \(roomId) AND user_id = \(userId) AND last_read_message_id < \(messageId)
            RETURNING room_id
            """).isEmpty
    }

    func setConversationKey(roomId: Int64, key: String) throws {
        try session.run("UPDATE rooms SET dm_key = \(key) WHERE id = \(roomId)")
    }

    func rooms(workspaceId: Int64) throws -> [Room] {
        try session.run("SELECT \(unescaped: Room.postgresColumns) FROM rooms WHERE workspace_id = \(workspaceId) ORDER BY id")
            .map(Room.init(postgres:))
    }

    func insert(_ room: Room) throws -> Room {
        try DuplicateKey.mappedOnPostgres { try insertRow(room) }
    }

    func update(_ room: Room) throws {
        guard let id = room.id else { return }
        try DuplicateKey.mappedOnPostgres {
            try session.run("""
                UPDATE rooms SET workspace_id = \(room.workspaceId), kind = \(room.kind.rawValue), name = \(room.name),
                    name_key = \(room.nameKey), description = \(room.description), owner_id = \(room.ownerId),
                    is_default = \(room.isDefault), dm_key = \(room.dmKey), cover_file_id = \(room.coverFileId),
                    created_at = \(room.createdAt), updated_at = \(room.updatedAt), visibility = \(room.visibility.rawValue),
                    archived_at = \(room.archivedAt)
                WHERE id = \(id)
                """)
        }
    }

    func delete(_ room: Room) throws {
        guard let id = room.id else { return }
        // Its memberships and messages go with it (ON DELETE CASCADE).
        try session.run("DELETE FROM rooms WHERE id = \(id)")
        try PostgresEventStore(session: session).scrubRoomsDeleted([id])
    }

    func isChannelNameTaken(workspaceId: Int64, nameKey: String, except: Int64?) throws -> Bool {
        try session.run("""
            SELECT EXISTS (SELECT 1 FROM rooms WHERE workspace_id = \(workspaceId) AND kind = 'channel'
                           AND name_key = \(nameKey) AND id IS DISTINCT FROM \(except))
            """)[0].decode(Bool.self)
    }

    func ownedChannelCount(workspaceId: Int64, userId: Int64) throws -> Int {
        try session.run("""
            SELECT COUNT(*) FROM rooms WHERE workspace_id = \(workspaceId) AND kind = 'channel' AND owner_id = \(userId)
            """)[0].decode(Int.self)
    }

    func channel(id: Int64, workspaceId: Int64, viewer userId: Int64) throws -> (room: Room, memberCount: Int, isMember: Bool)? {
        guard let row = try session.run("""
            SELECT \(unescaped: Room.postgresColumns),
                   (SELECT COUNT(*) FROM room_members WHERE room_members.room_id = rooms.id),
                   EXISTS (SELECT 1 FROM room_members WHERE room_members.room_id = rooms.id AND room_members.user_id = \(userId))
            FROM rooms WHERE rooms.id = \(id) AND rooms.workspace_id = \(workspaceId) AND rooms.kind = 'channel'
            """).first
        else { return nil }
        let cells = row.makeRandomAccess(), roomColumns = 14
        return (room: try Room(postgres: row), memberCount: try cells[roomColumns].decode(Int.self),
                isMember: try cells[roomColumns + 1].decode(Bool.self))
    }

    func channelListings(workspaceId: Int64, userId: Int64) throws -> [ChannelService.Listing] {
        try session.run("""
            SELECT id, name, description, is_default, member_count, joined, visibility FROM (
                SELECT rooms.id, rooms.name, rooms.description, rooms.is_default, rooms.visibility, rooms.name_key,
                       (SELECT COUNT(*) FROM room_members WHERE room_members.room_id = rooms.id) AS member_count,
                       EXISTS (SELECT 1 FROM room_members WHERE room_members.room_id = rooms.id
                               AND room_members.user_id = \(userId)) AS joined
                FROM rooms WHERE rooms.workspace_id = \(workspaceId) AND rooms.kind = 'channel') AS channels
            WHERE visibility = 'public' OR joined
            ORDER BY is_default DESC, name_key COLLATE "C", id
            """).map(ChannelService.Listing.init(postgres:))
    }

    func privateChannelListings(workspaceId: Int64, userId: Int64) throws -> [ChannelService.Listing] {
        try session.run("""
            SELECT rooms.id, rooms.name, '', rooms.is_default,
                   (SELECT COUNT(*) FROM room_members WHERE room_members.room_id = rooms.id),
                   EXISTS (SELECT 1 FROM room_members WHERE room_members.room_id = rooms.id AND room_members.user_id = \(userId)),
                   rooms.visibility
            FROM rooms WHERE rooms.workspace_id = \(workspaceId) AND rooms.kind = 'channel' AND rooms.visibility = 'private'
            ORDER BY rooms.name_key COLLATE "C", rooms.id
            """).map(ChannelService.Listing.init(postgres:))
    }

    func messageCount(roomId: Int64) throws -> Int {
        try session.run("SELECT COUNT(*) FROM messages WHERE room_id = \(roomId)")[0].decode(Int.self)
    }

    func memberNames(roomId: Int64) throws -> [(id: Int64, nickname: String)] {
        try session.run("""
            SELECT users.id, users.nickname FROM room_members JOIN users ON users.id = room_members.user_id
            WHERE room_members.room_id = \(roomId) ORDER BY users.nickname COLLATE "C", users.id
            """).map { row in
            let (id, nickname) = try row.decode((Int64, String).self)
            return (id: id, nickname: nickname)
        }
    }

    /// Stores the room (its id aside); answers it with the id it got.
    private func insertRow(_ room: Room) throws -> Room {
        let rows = try session.run("""
            INSERT INTO rooms (workspace_id, kind, name, name_key, description, owner_id, is_default, dm_key, cover_file_id,
                               created_at, updated_at, visibility, archived_at)
            VALUES (\(room.workspaceId), \(room.kind.rawValue), \(room.name), \(room.nameKey), \(room.description), \(room.ownerId),
                    \(room.isDefault), \(room.dmKey), \(room.coverFileId), \(room.createdAt), \(room.updatedAt),
                    \(room.visibility.rawValue), \(room.archivedAt))
            RETURNING id
            """)
        var inserted = room
        inserted.id = try rows.first?.decode(Int64.self)
        return inserted
    }
}

extension ChannelService.Listing {
    /// A channel from a row of id, name, description, is_default, member count, joined, visibility.
    init(postgres row: PostgresRow) throws {
        let (id, name, description, isDefault, memberCount, joined, visibility) =
            try row.decode((Int64, String, String, Bool, Int, Bool, String).self)
        guard let visibility = Room.Visibility(rawValue: visibility) else {
            throw PostgresUnknownValue(column: "rooms.visibility", value: visibility)
        }
        self.init(id: id, name: name, description: description, isDefault: isDefault, memberCount: memberCount, joined: joined,
                  visibility: visibility)
    }
}

/// The rooms a person is in within a workspace as the sidebar lists them, on PostgreSQL
/// (`RoomDirectory` on SQLite): channels first (the default, then by name), then DMs and groups;
/// each, when asked, with its exact unread count and its last message; a DM named after the other
/// person, a group after its other members.
struct PostgresRoomDirectory {
    let session: PostgresSession
    let workspaceId: Int64
    let userId: Int64

    func summaries(reads: RoomSummaryReads) throws -> [RoomSummary] {
        let entries = try self.entries(reads: reads)
        let partnerIds = SidebarEntries.partnerIds(entries, viewer: userId)
        return SidebarEntries.summaries(entries, workspaceId: workspaceId, viewer: userId, partners: try partners(partnerIds),
                                        statuses: try PostgresStatusStore(session: session).current(of: partnerIds, at: Date()),
                                        groups: try PostgresRoomStore(session: session).groupMembers(of: SidebarEntries.groupIds(entries)))
    }

    /// The person's rooms in the workspace, in the sidebar's order.
    private func entries(reads: RoomSummaryReads) throws -> [SidebarEntry] {
        let lastMessages = reads == .lastMessages
        let unreadColumn = reads == .roomsOnly ? "0" : "room_members.unread_count"
        let lastColumns = lastMessages ? "last.body, last.created_at" : "NULL::TEXT, NULL::TIMESTAMPTZ"
        let lastJoin = lastMessages ? """
            LEFT JOIN messages AS last ON last.id = (SELECT MAX(id) FROM messages
                                                     WHERE messages.room_id = rooms.id AND messages.in_timeline)
            """ : ""
        return try session.run("""
            SELECT rooms.id, rooms.kind, rooms.name, rooms.dm_key, rooms.visibility, rooms.archived_at IS NOT NULL,
                   \(unescaped: unreadColumn), room_members.notify_level, users.notify_default, \(unescaped: lastColumns)
            FROM rooms JOIN room_members ON room_members.room_id = rooms.id AND room_members.user_id = \(userId)
            JOIN users ON users.id = room_members.user_id
            \(unescaped: lastJoin)
            WHERE rooms.workspace_id = \(workspaceId)
            ORDER BY rooms.kind = 'channel' DESC, rooms.is_default DESC, rooms.name_key COLLATE "C", rooms.id
            """).map { row in
            let (id, kind, name, dmKey, visibility, isArchived, unread, ownNotify, defaultNotify, lastBody, lastAt) =
                try row.decode((Int64, String, String, String?, String, Bool, Int, String?, String, String?, Date?).self)
            guard let kind = Room.Kind(rawValue: kind) else { throw PostgresUnknownValue(column: "rooms.kind", value: kind) }
            return SidebarEntry(id: id, kind: kind, name: name, dmKey: dmKey, isPrivate: visibility == Room.Visibility.private.rawValue,
                                isArchived: isArchived, unread: unread, ownNotify: ownNotify.flatMap(NotifyLevel.init(rawValue:)),
                                defaultNotify: NotifyLevel(rawValue: defaultNotify) ?? .standard, lastBody: lastBody, lastAt: lastAt)
        }
    }

    /// The nickname and photo of each of `ids`.
    private func partners(_ ids: [Int64]) throws -> [Int64: SidebarPartner] {
        guard !ids.isEmpty else { return [:] }
        var found: [Int64: SidebarPartner] = [:]
        for row in try session.run("SELECT id, nickname, avatar_file_id FROM users WHERE id = ANY(\(ids))") {
            let (id, nickname, avatarFileId) = try row.decode((Int64, String, Int64?).self)
            found[id] = SidebarPartner(nickname: nickname, avatarFileId: avatarFileId)
        }
        return found
    }
}

/// `WorkspaceStore` on PostgreSQL: the rows of `workspaces` and `workspace_members`. Names are
/// ordered `COLLATE "C"`, by their bytes, as SQLite orders them.
struct PostgresWorkspaceStore: WorkspaceStore {
    let session: PostgresSession

    func isMember(workspaceId: Int64, userId: Int64) throws -> Bool {
        try !session.run("SELECT 1 FROM workspace_members WHERE workspace_id = \(workspaceId) AND user_id = \(userId)").isEmpty
    }

    func memberCount(workspaceId: Int64, among userIds: Set<Int64>) throws -> Int {
        guard !userIds.isEmpty else { return 0 }
        return try session.run("""
            SELECT COUNT(*) FROM workspace_members WHERE workspace_id = \(workspaceId) AND user_id = ANY(\(Array(userIds)))
            """)[0].decode(Int.self)
    }

    func member(workspaceId: Int64, userId: Int64) throws -> User? {
        try session.run("""
            SELECT \(unescaped: User.postgresColumns) FROM users
            WHERE id = \(userId)
              AND EXISTS (SELECT 1 FROM workspace_members WHERE workspace_id = \(workspaceId) AND user_id = users.id)
            """).first.map(User.init(postgres:))
    }

    func listed(userId: Int64) throws -> [(id: Int64, name: String)] {
        try session.run("""
            SELECT workspaces.id, workspaces.name FROM workspaces
            JOIN workspace_members ON workspace_members.workspace_id = workspaces.id
            WHERE workspace_members.user_id = \(userId) ORDER BY workspaces.name_key COLLATE "C", workspaces.id
            """).map { row in
            let (id, name) = try row.decode((Int64, String).self)
            return (id: id, name: name)
        }
    }

    func access(workspaceId: Int64, userId: Int64) throws -> WorkspaceAccess? {
        guard let row = try session.run("""
            SELECT \(unescaped: Workspace.postgresColumns), workspace_members.role FROM workspaces
            JOIN workspace_members ON workspace_members.workspace_id = workspaces.id AND workspace_members.user_id = \(userId)
            WHERE workspaces.id = \(workspaceId)
            """).first
        else { return nil }
        let workspaceColumns = 8
        let role = try row.makeRandomAccess()[workspaceColumns].decode(String.self)
        guard let role = WorkspaceRole(rawValue: role) else {
            throw PostgresUnknownValue(column: "workspace_members.role", value: role)
        }
        return WorkspaceAccess(workspace: try Workspace(postgres: row), role: role, userId: userId)
    }

    func workspace(id: Int64) throws -> Workspace? {
        try session.run("SELECT \(unescaped: Workspace.postgresColumns) FROM workspaces WHERE id = \(id)")
            .first.map(Workspace.init(postgres:))
    }

    func workspaces(of userId: Int64) throws -> [Workspace] {
        try session.run("""
            SELECT \(unescaped: Workspace.postgresColumns) FROM workspaces
            JOIN workspace_members ON workspace_members.workspace_id = workspaces.id
            WHERE workspace_members.user_id = \(userId) ORDER BY workspaces.name_key COLLATE "C", workspaces.id
            """).map(Workspace.init(postgres:))
    }

    func sharedWorkspaces(of viewerId: Int64, with otherId: Int64) throws -> [Workspace] {
        try session.run("""
            SELECT \(unescaped: Workspace.postgresColumns) FROM workspaces
            JOIN workspace_members AS viewer ON viewer.workspace_id = workspaces.id AND viewer.user_id = \(viewerId)
            JOIN workspace_members AS other ON other.workspace_id = workspaces.id AND other.user_id = \(otherId)
            ORDER BY workspaces.name_key COLLATE "C", workspaces.id
            """).map(Workspace.init(postgres:))
    }

    func isNameTaken(ownerId: Int64, nameKey: String, except: Int64?) throws -> Bool {
        try session.run("""
            SELECT EXISTS (SELECT 1 FROM workspaces WHERE owner_id = \(ownerId) AND name_key = \(nameKey)
                           AND id IS DISTINCT FROM \(except))
            """)[0].decode(Bool.self)
    }

    func insert(_ workspace: Workspace) throws -> Workspace {
        let rows = try DuplicateKey.mappedOnPostgres {
            try session.run("""
                INSERT INTO workspaces (name, name_key, description, owner_id, cover_file_id, created_at, updated_at)
                VALUES (\(workspace.name), \(workspace.nameKey), \(workspace.description), \(workspace.ownerId),
                        \(workspace.coverFileId), \(workspace.createdAt), \(workspace.updatedAt))
                RETURNING id
                """)
        }
        var inserted = workspace
        inserted.id = try rows.first?.decode(Int64.self)
        return inserted
    }

    func update(_ workspace: Workspace) throws {
        guard let id = workspace.id else { return }
        try DuplicateKey.mappedOnPostgres {
            try session.run("""
                UPDATE workspaces SET name = \(workspace.name), name_key = \(workspace.nameKey),
                    description = \(workspace.description), owner_id = \(workspace.ownerId),
                    cover_file_id = \(workspace.coverFileId), created_at = \(workspace.createdAt),
                    updated_at = \(workspace.updatedAt)
                WHERE id = \(id)
                """)
        }
    }

    func addMember(workspaceId: Int64, userId: Int64, role: WorkspaceRole, joinedAt now: Date) throws {
        try session.run("""
            INSERT INTO workspace_members (workspace_id, user_id, role, joined_at) VALUES (\(workspaceId), \(userId), \(role.rawValue), \(now))
            """)
    }

    func passOwnerRole(workspaceId: Int64, from oldOwnerId: Int64, to newOwnerId: Int64) throws {
        try session.run("UPDATE workspace_members SET role = 'member' WHERE workspace_id = \(workspaceId) AND user_id = \(oldOwnerId)")
        try session.run("UPDATE workspace_members SET role = 'owner' WHERE workspace_id = \(workspaceId) AND user_id = \(newOwnerId)")
    }

    func contents(workspaceId: Int64) throws -> (channels: Int, members: Int, messages: Int) {
        let (channels, members, messages) = try session.run(numbered: """
            SELECT (SELECT COUNT(*) FROM rooms WHERE workspace_id = $1 AND kind = 'channel'),
                   (SELECT COUNT(*) FROM workspace_members WHERE workspace_id = $1),
                   (SELECT COUNT(*) FROM messages JOIN rooms ON rooms.id = messages.room_id WHERE rooms.workspace_id = $1)
            """, binding: workspaceId)[0].decode((Int, Int, Int).self)
        return (channels: channels, members: members, messages: messages)
    }

    func delete(_ workspace: Workspace, rooms: [Int64]) throws {
        guard let id = workspace.id else { return }
        // Rooms, members, invitations and the audit log go with it (ON DELETE CASCADE).
        try session.run("DELETE FROM workspaces WHERE id = \(id)")
        try PostgresEventStore(session: session).scrubRoomsDeleted(rooms)
    }

    func overview() throws -> [AccountAdministration.WorkspaceSummary] {
        try session.run("""
            SELECT workspaces.id, workspaces.name, workspaces.owner_id, owner.nickname, owner.email,
                   owner.deactivated_at IS NOT NULL,
                   (SELECT COUNT(*) FROM workspace_members WHERE workspace_id = workspaces.id),
                   (SELECT COUNT(*) FROM messages JOIN rooms ON rooms.id = messages.room_id
                    WHERE rooms.workspace_id = workspaces.id AND messages.deleted_at IS NULL),
                   (SELECT COALESCE(SUM(files.size), 0)::BIGINT FROM files WHERE files.id IN (
                        SELECT message_files.file_id FROM message_files JOIN messages ON messages.id = message_files.message_id
                        JOIN rooms ON rooms.id = messages.room_id WHERE rooms.workspace_id = workspaces.id))
            FROM workspaces JOIN users AS owner ON owner.id = workspaces.owner_id
            ORDER BY owner.deactivated_at IS NULL, workspaces.id
            """).map { row in
            let (id, name, ownerId, ownerNickname, ownerEmail, ownerDeactivated, members, messages, fileBytes) =
                try row.decode((Int64, String, Int64, String, String, Bool, Int, Int, Int64).self)
            return AccountAdministration.WorkspaceSummary(
                id: id, name: name, ownerId: ownerId, ownerNickname: ownerNickname, ownerEmail: ownerEmail,
                ownerDeactivated: ownerDeactivated, members: members, messages: messages, fileBytes: fileBytes,
                successors: try successors(workspaceId: id, ownerId: ownerId))
        }
    }

    /// The workspace's active members with a password, its owner aside, by nickname (at most 500).
    private func successors(workspaceId: Int64, ownerId: Int64) throws -> [(id: Int64, nickname: String)] {
        try session.run("""
            SELECT users.id, users.nickname FROM workspace_members JOIN users ON users.id = workspace_members.user_id
            WHERE workspace_members.workspace_id = \(workspaceId) AND users.id <> \(ownerId) AND users.deactivated_at IS NULL
              AND users.password_hash <> ''
            ORDER BY users.nickname COLLATE "C", users.id LIMIT 500
            """).map { row in
            let (id, nickname) = try row.decode((Int64, String).self)
            return (id: id, nickname: nickname)
        }
    }
}
