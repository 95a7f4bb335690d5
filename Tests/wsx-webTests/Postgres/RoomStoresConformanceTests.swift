import Foundation
import HTTPTypes
import Testing
import Views
@testable import wsx_web

/// Rooms, workspaces and who is in them: the same tests on each backend (`ConformanceNode`).
/// The rows the stores read arrive as plain inserts, so each backend's triggers keep the unread
/// counts.
@Suite("Rooms and workspaces on both backends", .timeLimit(.minutes(5)))
struct RoomStoresConformanceTests {
    struct Stores {
        let rooms: any RoomStore
        let workspaces: any WorkspaceStore
        /// What a deletion takes out of the event log shows in replay.
        let events: any EventStore
    }

    private func withTeam(_ backend: StorageBackend, _ body: (ConformanceNode<Stores>, Team) async throws -> Void) async throws {
        try await withConformanceNodes(backend, sqlite: { tx in
            Stores(rooms: tx.rooms, workspaces: tx.workspaces, events: tx.events)
        }, postgres: { session in
            Stores(rooms: PostgresRoomStore(session: session), workspaces: PostgresWorkspaceStore(session: session),
                   events: PostgresEventStore(session: session))
        }) { (nodes: [ConformanceNode<Stores>]) in
            let node = nodes[0]
            // The fixtures' times are UTC, as SQLite reads them.
            if backend == .postgres { try await node.fixture("SET TIME ZONE 'UTC'") }
            let team = Team(mina: try await node.person("mina@example.com"), bob: try await node.person("bob@example.com"),
                            carol: try await node.person("carol@example.com"), dan: try await node.person("dan@example.com"))
            for sql in team.rows { try await node.fixture(sql) }
            try await body(node, team)
        }
    }

    /// Mina, bob, Carol (whose photo is file 10) and Dan (in no workspace). Workspace 10 "Team"
    /// (Mina's, with bob and Carol): #general (100, default, all three), #random (101, bob's, Mina
    /// and bob), the private #plans (102, Mina alone), the DMs of Mina and bob (103) and of bob and
    /// Carol (105), the group of the three (104), Mina's notes to herself (107). Workspace 11
    /// "Other" (Carol's, with Mina): #lobby (110, default) and the DM of Mina and Carol (111).
    struct Team {
        let mina: Int64, bob: Int64, carol: Int64, dan: Int64

        static let time = "'2026-11-01 09:00:00.000'"
        /// `time` as a date.
        static let date = Date(timeIntervalSince1970: 1_793_523_600)

        var rows: [String] {
            let t = Self.time
            func room(_ id: Int64, _ workspace: Int64, _ kind: Room.Kind, name: String = "", owner: Int64? = nil,
                      isDefault: Bool = false, key: String? = nil, visibility: Room.Visibility = .public) -> String {
                """
                INSERT INTO rooms (id, workspace_id, kind, name, name_key, description, owner_id, is_default, dm_key, visibility, created_at, updated_at)
                VALUES (\(id), \(workspace), '\(kind.rawValue)', '\(name)', '\(name.lowercased())', 'About \(name)',
                        \(owner.map(String.init) ?? "NULL"), \(isDefault ? "TRUE" : "FALSE"), \(key.map { "'\($0)'" } ?? "NULL"),
                        '\(visibility.rawValue)', \(t), \(t))
                """
            }
            let memberships: [(Int64, [Int64])] = [
                (100, [mina, bob, carol]), (101, [mina, bob]), (102, [mina]), (103, [mina, bob]), (104, [mina, bob, carol]),
                (105, [bob, carol]), (107, [mina]), (110, [carol, mina]), (111, [mina, carol]),
            ]
            return [
                "UPDATE users SET nickname = 'Mina' WHERE id = \(mina)",
                "UPDATE users SET nickname = 'bob' WHERE id = \(bob)",
                "UPDATE users SET nickname = 'Carol' WHERE id = \(carol)",
                "UPDATE users SET nickname = 'Dan' WHERE id = \(dan)",
                "INSERT INTO files (id, sha256, mime, size, original_name, created_at) VALUES (10, 'aa', 'image/png', 1000, 'carol.png', \(t))",
                "UPDATE users SET avatar_file_id = 10 WHERE id = \(carol)",
                "INSERT INTO workspaces (id, name, name_key, owner_id, created_at, updated_at) VALUES (10, 'Team', 'team', \(mina), \(t), \(t))",
                "INSERT INTO workspaces (id, name, name_key, owner_id, created_at, updated_at) VALUES (11, 'Other', 'other', \(carol), \(t), \(t))",
                "INSERT INTO workspace_members (workspace_id, user_id, role, joined_at) VALUES (10, \(mina), 'owner', \(t))",
                "INSERT INTO workspace_members (workspace_id, user_id, role, joined_at) VALUES (10, \(bob), 'member', \(t))",
                "INSERT INTO workspace_members (workspace_id, user_id, role, joined_at) VALUES (10, \(carol), 'member', \(t))",
                "INSERT INTO workspace_members (workspace_id, user_id, role, joined_at) VALUES (11, \(carol), 'owner', \(t))",
                "INSERT INTO workspace_members (workspace_id, user_id, role, joined_at) VALUES (11, \(mina), 'member', \(t))",
                room(100, 10, .channel, name: "general", owner: mina, isDefault: true),
                room(101, 10, .channel, name: "random", owner: bob),
                room(102, 10, .channel, name: "plans", owner: mina, visibility: .private),
                room(103, 10, .dm, key: DirectRooms.key(mina, bob)),
                room(104, 10, .group, owner: mina, key: GroupRooms.key([mina, bob, carol])),
                room(105, 10, .dm, key: DirectRooms.key(bob, carol)),
                room(107, 10, .dm, key: DirectRooms.key(mina, mina)),
                room(110, 11, .channel, name: "lobby", owner: carol, isDefault: true),
                room(111, 11, .dm, key: DirectRooms.key(mina, carol)),
            ] + memberships.flatMap { room, people in
                people.map { "INSERT INTO room_members (room_id, user_id, joined_at) VALUES (\(room), \($0), \(t))" }
            }
        }

        /// A message by `author` in `room`: a thread reply when `root` is given, a deleted
        /// thread root's placeholder when `deleted`.
        func post(_ id: Int64, in room: Int64, by author: Int64, _ body: String = "", root: Int64? = nil,
                  deleted: Bool = false) -> String {
            let text = body.isEmpty ? "m\(id)" : body
            return """
                INSERT INTO messages (id, room_id, author_id, body, body_html, created_at, thread_root_id, in_timeline, deleted_at)
                VALUES (\(id), \(room), \(author), '\(deleted ? "" : text)', '<p>\(text)</p>', \(Self.time),
                        \(root.map(String.init) ?? "NULL"), \(root == nil ? "TRUE" : "FALSE"), \(deleted ? Self.time : "NULL"))
                """
        }

        /// An event of the log about `message` of `room`.
        func event(_ id: Int64, _ type: EventType, room: Int64, message: Int64?) -> String {
            """
            INSERT INTO events (id, type, room_id, payload, created_at, message_id)
            VALUES (\(id), '\(type.rawValue)', \(room), '{}', \(Self.time), \(message.map(String.init) ?? "NULL"))
            """
        }

        /// The ids of the events replay still holds for `userId` in `rooms`.
        static func replayed(_ node: ConformanceNode<Stores>, userId: Int64, rooms: [Int64]) async throws -> [Int64] {
            try await node.answer { try $0.events.replay(after: 0, through: 1000, userId: userId, rooms: rooms, limit: 100,
                                                         maxBytes: 1 << 20) }.map(\.id)
        }
    }

    private static let start = Date(timeIntervalSince1970: 1_790_000_000.5)

    private static func channel(_ name: String, in workspaceId: Int64, owner: Int64?) -> Room {
        Room(id: nil, workspaceId: workspaceId, kind: .channel, name: name, nameKey: NameRules.key(name), description: "",
             ownerId: owner, isDefault: false, dmKey: nil, coverFileId: nil, createdAt: start, updatedAt: start)
    }

    private static func workspace(_ name: String, owner: Int64) -> Workspace {
        Workspace(id: nil, name: name, nameKey: NameRules.key(name), description: "", ownerId: owner, coverFileId: nil,
                  createdAt: start, updatedAt: start)
    }

    // MARK: - Rooms

    @Test("a room is found by id and as its workspace's default; one a person is not in, or of another workspace, is a 404",
          arguments: StorageBackend.allCases)
    func lookups(_ backend: StorageBackend) async throws {
        try await withTeam(backend) { node, team in
            let random = try #require(try await node.answer { try $0.rooms.room(id: 101) })
            #expect(random.name == "random" && random.kind == .channel && random.workspaceId == 10 && random.ownerId == team.bob)
            #expect(random.description == "About random" && random.createdAt == Team.date && !random.isDefault && !random.isArchived)
            #expect(try await node.answer { try $0.rooms.room(id: 999) } == nil)
            #expect(try await node.answer { try $0.rooms.defaultRoom(workspaceId: 10) }?.id == 100)
            #expect(try await node.answer { try $0.rooms.defaultRoom(workspaceId: 11) }?.id == 110)
            #expect(try await node.answer { try $0.rooms.defaultRoom(workspaceId: 999) } == nil)

            let bob = try #require(try await node.answer { try $0.workspaces.access(workspaceId: 10, userId: team.bob) })
            let mina = try #require(try await node.answer { try $0.workspaces.access(workspaceId: 10, userId: team.mina) })
            #expect(try await node.answer { try $0.rooms.memberRoom(id: 101, bob) } == random)
            #expect(try await node.answer { try $0.rooms.memberRoom(id: 102, mina) }.isPrivate)
            for (id, access) in [(102, bob), (110, mina), (999, mina)] as [(Int64, WorkspaceAccess)] {
                let error = await #expect(throws: AppError.self, "room \(id)") {
                    try await node.answer { try $0.rooms.memberRoom(id: id, access) }
                }
                #expect(error?.status == .notFound)
            }

            #expect(try await node.answer { try $0.rooms.isArchived(roomId: 101) } == false)
            try await node.fixture("UPDATE rooms SET archived_at = \(Team.time) WHERE id = 101")
            #expect(try await node.answer { try $0.rooms.isArchived(roomId: 101) })
            #expect(try await node.answer { try $0.rooms.room(id: 101) }?.archivedAt == Team.date)
            #expect(try await node.answer { try $0.rooms.isArchived(roomId: 999) } == false, "no room is not archived")
        }
    }

    @Test("a channel of the workspace shows how many are in it and whether the viewer is; anything else is not a channel",
          arguments: StorageBackend.allCases)
    func channelView(_ backend: StorageBackend) async throws {
        try await withTeam(backend) { node, team in
            let forCarol = try #require(try await node.answer { try $0.rooms.channel(id: 101, workspaceId: 10, viewer: team.carol) })
            #expect(forCarol.room.name == "random" && forCarol.memberCount == 2 && !forCarol.isMember)
            let forBob = try #require(try await node.answer { try $0.rooms.channel(id: 101, workspaceId: 10, viewer: team.bob) })
            #expect(forBob.room == forCarol.room && forBob.isMember)
            #expect(try await node.answer { try $0.rooms.channel(id: 100, workspaceId: 10, viewer: team.dan) }?.memberCount == 3)
            #expect(try await node.answer { try $0.rooms.channel(id: 103, workspaceId: 10, viewer: team.mina) } == nil, "a DM")
            #expect(try await node.answer { try $0.rooms.channel(id: 104, workspaceId: 10, viewer: team.mina) } == nil, "a group")
            #expect(try await node.answer { try $0.rooms.channel(id: 110, workspaceId: 10, viewer: team.mina) } == nil, "another workspace's")
            #expect(try await node.answer { try $0.rooms.channel(id: 999, workspaceId: 10, viewer: team.mina) } == nil)
        }
    }

    @Test("a DM is found by its pair's key and a group by its members' key (the newest of two); a person's DMs are theirs alone",
          arguments: StorageBackend.allCases)
    func conversations(_ backend: StorageBackend) async throws {
        try await withTeam(backend) { node, team in
            let pair = DirectRooms.key(team.bob, team.mina), trio = GroupRooms.key([team.carol, team.bob, team.mina])
            #expect(try await node.answer { try $0.rooms.conversation(workspaceId: 10, kind: .dm, key: pair) }?.id == 103)
            #expect(try await node.answer { try $0.rooms.conversation(workspaceId: 11, kind: .dm, key: pair) } == nil)
            #expect(try await node.answer { try $0.rooms.conversation(workspaceId: 10, kind: .group, key: pair) } == nil)
            #expect(try await node.answer { try $0.rooms.conversation(workspaceId: 10, kind: .group, key: trio) }?.id == 104)
            try await node.fixture("""
                INSERT INTO rooms (id, workspace_id, kind, dm_key, created_at, updated_at) VALUES (106, 10, 'group', '\(trio)', \(Team.time), \(Team.time))
                """)
            #expect(try await node.answer { try $0.rooms.conversation(workspaceId: 10, kind: .group, key: trio) }?.id == 106)

            #expect(try await node.answer { try $0.rooms.directRooms(workspaceId: 10, of: team.mina) }.compactMap(\.id).sorted() == [103, 107])
            #expect(try await node.answer { try $0.rooms.directRooms(workspaceId: 10, of: team.bob) }.compactMap(\.id).sorted() == [103, 105])
            #expect(try await node.answer { try $0.rooms.directRooms(workspaceId: 10, of: team.carol) }.map(\.id) == [105],
                    "her group is not a DM")
            #expect(try await node.answer { try $0.rooms.directRooms(workspaceId: 11, of: team.mina) }.map(\.id) == [111])
            #expect(try await node.answer { try $0.rooms.directRooms(workspaceId: 10, of: team.dan) }.isEmpty)

            let four = GroupRooms.key([team.mina, team.bob, team.carol, team.dan])
            try await node.answer { try $0.rooms.setConversationKey(roomId: 104, key: four) }
            #expect(try await node.answer { try $0.rooms.conversation(workspaceId: 10, kind: .group, key: four) }?.id == 104)
            #expect(try await node.answer { try $0.rooms.room(id: 104) }?.dmKey == four)
        }
    }

    @Test("a new room holds its members with nothing read; people join at a marker and leave; a marker only moves forward",
          arguments: StorageBackend.allCases)
    func membership(_ backend: StorageBackend) async throws {
        try await withTeam(backend) { node, team in
            let group = Room(id: nil, workspaceId: 10, kind: .group, name: "", nameKey: "", description: "", ownerId: team.bob,
                             isDefault: false, dmKey: "key", coverFileId: nil, createdAt: Self.start, updatedAt: Self.start)
            let created = try await node.answer { try $0.rooms.create(group, members: [team.mina, team.bob], at: Self.start) }
            let id = try #require(created.id)
            #expect(try await node.answer { try $0.rooms.room(id: id) } == created)
            #expect(try await node.answer { try $0.rooms.memberIds(roomId: id) }.sorted() == [team.mina, team.bob].sorted())
            #expect(try await node.answer { try $0.rooms.memberCount(roomId: id) } == 2)
            #expect(try await node.answer { try $0.rooms.isMember(roomId: id, userId: team.mina) })
            #expect(try await node.answer { try $0.rooms.isMember(roomId: id, userId: team.carol) } == false)
            #expect(try await node.answer { try $0.rooms.latestMessageId(roomId: id) } == 0)
            #expect(try await node.answer { try $0.rooms.messageCount(roomId: id) } == 0)

            for message in [20, 21, 22] as [Int64] { try await node.fixture(team.post(message, in: id, by: team.mina)) }
            try await node.fixture(team.post(23, in: 100, by: team.mina))
            #expect(try await node.answer { try $0.rooms.latestMessageId(roomId: id) } == 22)
            #expect(try await node.answer { try $0.rooms.messageCount(roomId: id) } == 3)
            #expect(try await node.answer { try $0.rooms.summaries(workspaceId: 10, userId: team.bob, reads: .unreadCounts) }
                .first { $0.id == id }?.unread == 3, "created with nothing read")

            try await node.answer { try $0.rooms.addMember(roomId: id, userId: team.carol, joinedAt: Self.start, lastReadMessageId: 21) }
            #expect(try await node.answer { try $0.rooms.summaries(workspaceId: 10, userId: team.carol, reads: .unreadCounts) }
                .first { $0.id == id }?.unread == 1, "read up to her marker")

            #expect(try await node.answer { try $0.rooms.advanceMarker(roomId: id, userId: team.bob, to: 21) })
            #expect(try await node.answer { try $0.rooms.advanceMarker(roomId: id, userId: team.bob, to: 20) } == false, "never back")
            #expect(try await node.answer { try $0.rooms.advanceMarker(roomId: id, userId: team.bob, to: 21) } == false)
            #expect(try await node.answer { try $0.rooms.advanceMarker(roomId: id, userId: team.dan, to: 22) } == false, "not in it")
            #expect(try await node.answer { try $0.rooms.summaries(workspaceId: 10, userId: team.bob, reads: .unreadCounts) }
                .first { $0.id == id }?.unread == 1)

            try await node.answer { try $0.rooms.removeMembers(roomId: id, userIds: [team.bob, team.dan]) }
            #expect(try await node.answer { try $0.rooms.memberIds(roomId: id) }.sorted() == [team.mina, team.carol].sorted())
            let pairs = Set(try await node.answer { try $0.rooms.allMemberships() }.map { [$0.roomId, $0.userId] })
            let expected: Set<[Int64]> = [
                [100, team.mina], [100, team.bob], [100, team.carol], [101, team.mina], [101, team.bob], [102, team.mina],
                [103, team.mina], [103, team.bob], [104, team.mina], [104, team.bob], [104, team.carol], [105, team.bob],
                [105, team.carol], [107, team.mina], [110, team.carol], [110, team.mina], [111, team.mina], [111, team.carol],
                [id, team.mina], [id, team.carol],
            ]
            #expect(pairs == expected)
        }
    }

    @Test("members are listed by nickname, byte by byte: groups with their photos, and every member of a room",
          arguments: StorageBackend.allCases)
    func memberNames(_ backend: StorageBackend) async throws {
        try await withTeam(backend) { node, team in
            let names = try await node.answer { try $0.rooms.memberNames(roomId: 100) }
            #expect(names.map(\.id) == [team.carol, team.mina, team.bob] && names.map(\.nickname) == ["Carol", "Mina", "bob"])
            #expect(try await node.answer { try $0.rooms.memberNames(roomId: 999) }.isEmpty)

            let groups = try await node.answer { try $0.rooms.groupMembers(of: [104, 101, 999]) }
            #expect(groups.keys.sorted() == [101, 104], "rooms with nobody have no entry")
            #expect(groups[104] == [GroupRooms.Person(id: team.carol, nickname: "Carol", avatarFileId: 10),
                                    GroupRooms.Person(id: team.mina, nickname: "Mina", avatarFileId: nil),
                                    GroupRooms.Person(id: team.bob, nickname: "bob", avatarFileId: nil)])
            #expect(groups[101]?.map(\.id) == [team.mina, team.bob])
            #expect(try await node.answer { try $0.rooms.groupMembers(of: []) }.isEmpty)
        }
    }

    @Test("a channel name is its workspace's once: another channel of that name is refused as DuplicateKey, elsewhere it is not",
          arguments: StorageBackend.allCases)
    func channelNames(_ backend: StorageBackend) async throws {
        try await withTeam(backend) { node, team in
            await #expect(throws: DuplicateKey.self) {
                try await node.answer { try $0.rooms.insert(Self.channel("Random", in: 10, owner: team.mina)) }
            }
            let elsewhere = try await node.answer { try $0.rooms.insert(Self.channel("Random", in: 11, owner: team.carol)) }
            #expect(elsewhere.id != nil)
            #expect(try await node.answer { try $0.rooms.room(id: elsewhere.id!) } == elsewhere)
            var group = Self.channel("random", in: 10, owner: team.mina)
            group.kind = .group
            let grouped = group
            let groupId = try #require(try await node.answer { try $0.rooms.insert(grouped) }.id, "a group is not a channel")

            #expect(try await node.answer { try $0.rooms.isChannelNameTaken(workspaceId: 10, nameKey: "random", except: nil) })
            #expect(try await node.answer { try $0.rooms.isChannelNameTaken(workspaceId: 10, nameKey: "random", except: 101) } == false)
            #expect(try await node.answer { try $0.rooms.isChannelNameTaken(workspaceId: 10, nameKey: "random", except: 100) })
            #expect(try await node.answer { try $0.rooms.isChannelNameTaken(workspaceId: 11, nameKey: "random", except: nil) })
            #expect(try await node.answer { try $0.rooms.isChannelNameTaken(workspaceId: 10, nameKey: "ideas", except: nil) } == false)

            var random = try #require(try await node.answer { try $0.rooms.room(id: 101) })
            var clash = random
            (clash.name, clash.nameKey) = ("General", "general")
            let clashing = clash
            await #expect(throws: DuplicateKey.self) { try await node.answer { try $0.rooms.update(clashing) } }
            #expect(try await node.answer { try $0.rooms.room(id: 101) }?.name == "random", "nothing changed")

            (random.name, random.nameKey, random.description) = ("Ideas", "ideas", "새 아이디어")
            (random.ownerId, random.coverFileId, random.visibility) = (team.mina, 10, .private)
            (random.updatedAt, random.archivedAt) = (Self.start, Self.start.addingTimeInterval(60))
            let saved = random
            try await node.answer { try $0.rooms.update(saved) }
            #expect(try await node.answer { try $0.rooms.room(id: 101) } == saved)
            #expect(try await node.answer { try $0.rooms.isChannelNameTaken(workspaceId: 10, nameKey: "ideas", except: nil) })

            #expect(try await node.answer { try $0.rooms.rooms(workspaceId: 10) }.compactMap(\.id).sorted()
                    == [100, 101, 102, 103, 104, 105, 107, groupId].sorted())
        }
    }

    @Test("a person owns the channels they made, not the conversations", arguments: StorageBackend.allCases)
    func ownership(_ backend: StorageBackend) async throws {
        try await withTeam(backend) { node, team in
            let minas = try await node.answer { try $0.rooms.ownedChannelCount(workspaceId: 10, userId: team.mina) }
            #expect(minas == 2, "#general and #plans; not her group")
            #expect(try await node.answer { try $0.rooms.ownedChannelCount(workspaceId: 10, userId: team.bob) } == 1)
            #expect(try await node.answer { try $0.rooms.ownedChannelCount(workspaceId: 11, userId: team.mina) } == 0)
            #expect(try await node.answer { try $0.rooms.ownedChannelCount(workspaceId: 11, userId: team.carol) } == 1)
            #expect(try await node.answer { try $0.rooms.rooms(workspaceId: 10) }.compactMap(\.id).sorted()
                    == [100, 101, 102, 103, 104, 105, 107])
            #expect(try await node.answer { try $0.rooms.rooms(workspaceId: 11) }.compactMap(\.id).sorted() == [110, 111])
            #expect(try await node.answer { try $0.rooms.rooms(workspaceId: 999) }.isEmpty)
        }
    }

    @Test("channels are listed to whoever may know of them: public ones to all, private ones to their members; the default first, then by name's bytes",
          arguments: StorageBackend.allCases)
    func listings(_ backend: StorageBackend) async throws {
        try await withTeam(backend) { node, team in
            for (id, name, visibility) in [(120, "Zeta", "public"), (121, "Éclair", "public"), (122, "_misc", "public"),
                                           (123, "Archive", "private")] {
                try await node.fixture("""
                    INSERT INTO rooms (id, workspace_id, kind, name, name_key, description, visibility, created_at, updated_at)
                    VALUES (\(id), 10, 'channel', '\(name)', '\(name.lowercased())', 'About \(name)', '\(visibility)', \(Team.time), \(Team.time))
                    """)
            }
            try await node.fixture("INSERT INTO room_members (room_id, user_id, joined_at) VALUES (123, \(team.bob), \(Team.time))")

            let bobs = try await node.answer { try $0.rooms.channelListings(workspaceId: 10, userId: team.bob) }
            #expect(bobs.map(\.name) == ["general", "_misc", "Archive", "random", "Zeta", "Éclair"])
            let general = try #require(bobs.first)
            #expect(general.id == 100 && general.isDefault && general.memberCount == 3 && general.joined)
            #expect(general.description == "About general" && general.visibility == .public)
            let misc = try #require(bobs.first { $0.id == 122 })
            #expect(misc.memberCount == 0 && !misc.joined && !misc.isDefault)
            #expect(bobs.first { $0.id == 123 }?.visibility == .private)

            let minas = try await node.answer { try $0.rooms.channelListings(workspaceId: 10, userId: team.mina) }
            #expect(minas.map(\.id) == [100, 122, 102, 101, 120, 121], "her #plans, not bob's #Archive")
            #expect(try await node.answer { try $0.rooms.channelListings(workspaceId: 11, userId: team.bob) }.map(\.id) == [110])

            let hidden = try await node.answer { try $0.rooms.privateChannelListings(workspaceId: 10, userId: team.mina) }
            #expect(hidden.map(\.name) == ["Archive", "plans"])
            #expect(hidden.allSatisfy { $0.description.isEmpty && $0.visibility == .private && !$0.isDefault })
            #expect(hidden.map(\.memberCount) == [1, 1] && hidden.map(\.joined) == [false, true])
            #expect(try await node.answer { try $0.rooms.privateChannelListings(workspaceId: 11, userId: team.carol) }.isEmpty)
        }
    }

    @Test("the sidebar lists a person's rooms, channels first, each named as they see it, with exact unread counts and last messages",
          arguments: StorageBackend.allCases)
    func summaries(_ backend: StorageBackend) async throws {
        try await withTeam(backend) { node, team in
            let long = String(repeating: "가", count: 100)
            for sql in [
                team.post(30, in: 100, by: team.mina, "hello"),
                team.post(31, in: 100, by: team.bob, "from bob"),
                team.post(32, in: 100, by: team.carol, "a reply", root: 30),
                team.post(33, in: 101, by: team.mina, long),
                team.post(34, in: 103, by: team.mina, "hi bob"),
                team.post(35, in: 104, by: team.carol, "group hi"),
                "UPDATE rooms SET archived_at = \(Team.time) WHERE id = 101",
                "UPDATE room_members SET notify_level = 'mute' WHERE room_id = 101 AND user_id = \(team.bob)",
                "UPDATE users SET notify_default = 'all' WHERE id = \(team.bob)",
                "INSERT INTO user_statuses (user_id, emoji, text, updated_at) VALUES (\(team.mina), '🌴', 'away', \(Team.time))",
                "INSERT INTO user_statuses (user_id, emoji, text, expires_at, updated_at) VALUES (\(team.carol), '🤒', 'sick', '2020-01-01 00:00:00.000', \(Team.time))",
            ] { try await node.fixture(sql) }

            let bobs = try await node.answer { try $0.rooms.summaries(workspaceId: 10, userId: team.bob, reads: .lastMessages) }
            #expect(bobs.map(\.id) == [100, 101, 103, 104, 105])
            #expect(bobs.map(\.name) == ["general", "random", "Mina", "Carol, Mina", "Carol"])
            #expect(bobs.map(\.unread) == [1, 1, 1, 1, 0], "not his own, not thread replies")
            #expect(bobs.map(\.lastSnippet) == ["from bob", String(repeating: "가", count: 79) + "…", "hi bob", "group hi", nil])
            #expect(bobs.map(\.lastAt) == [Team.date, Team.date, Team.date, Team.date, nil])
            #expect(bobs.map(\.url) == [Paths.channel(10, 100), Paths.channel(10, 101), Paths.directMessages(10, team.mina),
                                        Paths.group(10, 104), Paths.directMessages(10, team.carol)])
            #expect(bobs.map(\.personId) == [nil, nil, team.mina, nil, team.carol])
            #expect(bobs.map(\.status) == [nil, nil, "🌴 away", nil, nil], "Carol's status expired")
            #expect(bobs.map(\.avatarURL) == [nil, nil, nil, nil, Paths.thumbnail(10)])
            #expect(bobs.map(\.isChannel) == [true, true, false, false, false])
            #expect(bobs.map(\.isArchived) == [false, true, false, false, false])
            #expect(bobs.map(\.groupSize) == [nil, nil, nil, 3, nil])
            #expect(bobs.map(\.initial) == bobs.map { AvatarFace.initial($0.name) })
            #expect(bobs.map(\.ownNotify) == [nil, .mute, nil, nil, nil])
            #expect(bobs.allSatisfy { $0.defaultNotify == .all && !$0.isPrivate })

            let quiet = try await node.answer { try $0.rooms.summaries(workspaceId: 10, userId: team.bob, reads: .unreadCounts) }
            #expect(quiet.map(\.id) == bobs.map(\.id) && quiet.map(\.unread) == bobs.map(\.unread))
            #expect(quiet.allSatisfy { $0.lastSnippet == nil && $0.lastAt == nil })
            let listed = try await node.answer { try $0.rooms.summaries(workspaceId: 10, userId: team.bob, reads: .roomsOnly) }
            #expect(listed.map(\.id) == bobs.map(\.id) && listed.map(\.name) == bobs.map(\.name))
            #expect(listed.allSatisfy { $0.unread == 0 && $0.lastSnippet == nil }, "the rooms alone")

            let minas = try await node.answer { try $0.rooms.summaries(workspaceId: 10, userId: team.mina, reads: .lastMessages) }
            #expect(minas.map(\.id) == [100, 102, 101, 103, 104, 107])
            #expect(minas.map(\.unread) == [1, 0, 0, 0, 1, 0])
            #expect(minas.map(\.isPrivate) == [false, true, false, false, false, false])
            #expect(minas.last?.name == "Mina" && minas.last?.personId == team.mina, "her notes to herself")
            #expect(minas.allSatisfy { $0.defaultNotify == .standard })

            let carols = try await node.answer { try $0.rooms.summaries(workspaceId: 11, userId: team.carol, reads: .lastMessages) }
            #expect(carols.map(\.id) == [110, 111] && carols.last?.name == "Mina")
            #expect(try await node.answer { try $0.rooms.summaries(workspaceId: 10, userId: team.dan, reads: .lastMessages) }.isEmpty)
        }
    }

    @Test("a deleted room takes its memberships and messages with it, and its messages' events leave the log",
          arguments: StorageBackend.allCases)
    func deleteRoom(_ backend: StorageBackend) async throws {
        try await withTeam(backend) { node, team in
            for sql in [
                team.post(40, in: 101, by: team.mina), team.post(41, in: 101, by: team.bob), team.post(42, in: 100, by: team.bob),
                team.event(1, .messageCreated, room: 101, message: 40),
                team.event(2, .messageUpdated, room: 101, message: 40),
                team.event(3, .messagePreview, room: 101, message: 41),
                team.event(4, .roomMemberAdded, room: 101, message: nil),
                team.event(5, .messageCreated, room: 100, message: 42),
            ] { try await node.fixture(sql) }
            let random = try #require(try await node.answer { try $0.rooms.room(id: 101) })

            try await node.answer { try $0.rooms.delete(random) }
            #expect(try await node.answer { try $0.rooms.room(id: 101) } == nil)
            #expect(try await node.answer { try $0.rooms.memberIds(roomId: 101) }.isEmpty)
            #expect(try await node.answer { try $0.rooms.messageCount(roomId: 101) } == 0)
            #expect(try await node.answer { try $0.rooms.allMemberships() }.allSatisfy { $0.roomId != 101 })
            #expect(try await node.answer { try $0.rooms.messageCount(roomId: 100) } == 1, "other rooms keep theirs")
            #expect(try await Team.replayed(node, userId: team.mina, rooms: [100, 101]) == [4, 5],
                    "the room's other events stay")
            #expect(try await node.answer { try $0.rooms.summaries(workspaceId: 10, userId: team.bob, reads: .unreadCounts) }
                .map(\.id) == [100, 103, 104, 105])
        }
    }

    // MARK: - Workspaces

    @Test("a workspace's members are found, counted and listed by name's bytes; strangers get nothing",
          arguments: StorageBackend.allCases)
    func workspaceMembers(_ backend: StorageBackend) async throws {
        try await withTeam(backend) { node, team in
            for (id, name) in [(12, "Ärger"), (13, "_Lab")] {
                try await node.fixture("""
                    INSERT INTO workspaces (id, name, name_key, owner_id, created_at, updated_at) VALUES (\(id), '\(name)', '\(name.lowercased())', \(team.mina), \(Team.time), \(Team.time))
                    """)
                try await node.fixture("INSERT INTO workspace_members (workspace_id, user_id, role, joined_at) VALUES (\(id), \(team.mina), 'owner', \(Team.time))")
            }
            #expect(try await node.answer { try $0.workspaces.isMember(workspaceId: 10, userId: team.bob) })
            #expect(try await node.answer { try $0.workspaces.isMember(workspaceId: 11, userId: team.bob) } == false)
            #expect(try await node.answer { try $0.workspaces.memberCount(workspaceId: 10, among: [team.mina, team.bob, team.dan, 999]) } == 2)
            #expect(try await node.answer { try $0.workspaces.memberCount(workspaceId: 10, among: []) } == 0)
            let bob = try await node.answer { try $0.workspaces.member(workspaceId: 10, userId: team.bob) }
            #expect(bob?.id == team.bob && bob?.email == "bob@example.com" && bob?.nickname == "bob")
            #expect(try await node.answer { try $0.workspaces.member(workspaceId: 11, userId: team.bob) } == nil)

            let listed = try await node.answer { try $0.workspaces.listed(userId: team.mina) }
            #expect(listed.map(\.id) == [13, 11, 10, 12] && listed.map(\.name) == ["_Lab", "Other", "Team", "Ärger"])
            #expect(try await node.answer { try $0.workspaces.listed(userId: team.dan) }.isEmpty)
            let hers = try await node.answer { try $0.workspaces.workspaces(of: team.mina) }
            #expect(hers.map(\.id) == [13, 11, 10, 12])
            let team10 = try #require(hers.first { $0.id == 10 })
            #expect(team10.name == "Team" && team10.nameKey == "team" && team10.ownerId == team.mina && team10.createdAt == Team.date)
            #expect(try await node.answer { try $0.workspaces.workspace(id: 10) } == team10)
            #expect(try await node.answer { try $0.workspaces.workspace(id: 999) } == nil)

            #expect(try await node.answer { try $0.workspaces.sharedWorkspaces(of: team.mina, with: team.carol) }.map(\.id) == [11, 10])
            #expect(try await node.answer { try $0.workspaces.sharedWorkspaces(of: team.bob, with: team.carol) }.map(\.id) == [10])
            #expect(try await node.answer { try $0.workspaces.sharedWorkspaces(of: team.mina, with: team.dan) }.isEmpty)
        }
    }

    @Test("a member reaches a workspace with their role; anyone else, or a workspace that is not there, gets nil",
          arguments: StorageBackend.allCases)
    func access(_ backend: StorageBackend) async throws {
        try await withTeam(backend) { node, team in
            let workspace = try #require(try await node.answer { try $0.workspaces.workspace(id: 10) })
            let bob = try #require(try await node.answer { try $0.workspaces.access(workspaceId: 10, userId: team.bob) })
            #expect(bob.workspace == workspace && bob.role == .member && bob.userId == team.bob && !bob.isOwner)
            #expect(try await node.answer { try $0.workspaces.access(workspaceId: 10, userId: team.mina) }?.role == .owner)
            #expect(try await node.answer { try $0.workspaces.access(workspaceId: 11, userId: team.bob) } == nil)
            #expect(try await node.answer { try $0.workspaces.access(workspaceId: 999, userId: team.mina) } == nil)
        }
    }

    @Test("a workspace name is its owner's once: another of theirs is refused as DuplicateKey, someone else's is not",
          arguments: StorageBackend.allCases)
    func workspaceNames(_ backend: StorageBackend) async throws {
        try await withTeam(backend) { node, team in
            let again = Self.workspace("TEAM", owner: team.mina), bobs = Self.workspace("TEAM", owner: team.bob)
            await #expect(throws: DuplicateKey.self) { try await node.answer { try $0.workspaces.insert(again) } }
            let inserted = try await node.answer { try $0.workspaces.insert(bobs) }
            #expect(inserted.id != nil && inserted.id != 10)
            #expect(try await node.answer { try $0.workspaces.workspace(id: inserted.id!) } == inserted)

            #expect(try await node.answer { try $0.workspaces.isNameTaken(ownerId: team.mina, nameKey: "team", except: nil) })
            #expect(try await node.answer { try $0.workspaces.isNameTaken(ownerId: team.mina, nameKey: "team", except: 10) } == false)
            #expect(try await node.answer { try $0.workspaces.isNameTaken(ownerId: team.bob, nameKey: "team", except: nil) })
            #expect(try await node.answer { try $0.workspaces.isNameTaken(ownerId: team.carol, nameKey: "team", except: nil) } == false)

            let second = try await node.answer { try $0.workspaces.insert(Self.workspace("Second", owner: team.carol)) }
            var clash = second
            (clash.name, clash.nameKey) = ("OTHER", "other")
            let clashing = clash
            await #expect(throws: DuplicateKey.self) { try await node.answer { try $0.workspaces.update(clashing) } }
            #expect(try await node.answer { try $0.workspaces.workspace(id: second.id!) }?.name == "Second", "nothing changed")

            var changed = second
            (changed.name, changed.nameKey, changed.description) = ("세컨드", "세컨드", "둘째")
            (changed.coverFileId, changed.updatedAt) = (10, Self.start.addingTimeInterval(60))
            let saved = changed
            try await node.answer { try $0.workspaces.update(saved) }
            #expect(try await node.answer { try $0.workspaces.workspace(id: second.id!) } == saved)
        }
    }

    @Test("people join with a role, once; ownership passes: the old owner stays as a member", arguments: StorageBackend.allCases)
    func ownershipPasses(_ backend: StorageBackend) async throws {
        try await withTeam(backend) { node, team in
            try await node.answer { try $0.workspaces.addMember(workspaceId: 11, userId: team.bob, role: .member, joinedAt: Self.start) }
            #expect(try await node.answer { try $0.workspaces.access(workspaceId: 11, userId: team.bob) }?.role == .member)
            await #expect(throws: (any Error).self) {
                try await node.answer { try $0.workspaces.addMember(workspaceId: 11, userId: team.bob, role: .owner, joinedAt: Self.start) }
            }

            try await node.answer { try $0.workspaces.passOwnerRole(workspaceId: 10, from: team.mina, to: team.bob) }
            #expect(try await node.answer { try $0.workspaces.access(workspaceId: 10, userId: team.bob) }?.role == .owner)
            #expect(try await node.answer { try $0.workspaces.access(workspaceId: 10, userId: team.mina) }?.role == .member)
            #expect(try await node.answer { try $0.workspaces.access(workspaceId: 10, userId: team.carol) }?.role == .member)
            #expect(try await node.answer { try $0.workspaces.access(workspaceId: 11, userId: team.carol) }?.role == .owner,
                    "other workspaces keep theirs")
        }
    }

    @Test("deleting a workspace takes its rooms, members and messages, counted beforehand, and their messages' events",
          arguments: StorageBackend.allCases)
    func deleteWorkspace(_ backend: StorageBackend) async throws {
        try await withTeam(backend) { node, team in
            for sql in [
                team.post(50, in: 100, by: team.mina), team.post(51, in: 100, by: team.bob, root: 50),
                team.post(52, in: 103, by: team.bob, deleted: true), team.post(53, in: 110, by: team.carol),
                team.event(1, .messageCreated, room: 100, message: 50),
                team.event(2, .messageCreated, room: 103, message: 52),
                team.event(3, .messageCreated, room: 110, message: 53),
            ] { try await node.fixture(sql) }
            let contents = try await node.answer { try $0.workspaces.contents(workspaceId: 10) }
            #expect(contents == (channels: 3, members: 3, messages: 3), "replies and placeholders count")
            let other = try await node.answer { try $0.workspaces.contents(workspaceId: 11) }
            #expect(other == (channels: 1, members: 2, messages: 1), "its DM is not a channel")

            let workspace = try #require(try await node.answer { try $0.workspaces.workspace(id: 10) })
            let rooms = try await node.answer { try $0.rooms.rooms(workspaceId: 10) }.compactMap(\.id)
            try await node.answer { try $0.workspaces.delete(workspace, rooms: rooms) }
            #expect(try await node.answer { try $0.workspaces.workspace(id: 10) } == nil)
            #expect(try await node.answer { try $0.rooms.rooms(workspaceId: 10) }.isEmpty)
            #expect(try await node.answer { try $0.workspaces.isMember(workspaceId: 10, userId: team.bob) } == false)
            #expect(try await node.answer { try $0.workspaces.listed(userId: team.mina) }.map(\.id) == [11])
            #expect(Set(try await node.answer { try $0.rooms.allMemberships() }.map(\.roomId)) == [110, 111])
            #expect(try await node.answer { try $0.rooms.messageCount(roomId: 100) } == 0)
            let gone = try await node.answer { try $0.workspaces.contents(workspaceId: 10) }
            #expect(gone == (channels: 0, members: 0, messages: 0))
            #expect(try await Team.replayed(node, userId: team.mina, rooms: [100, 103, 110]) == [3])
        }
    }

    @Test("the administrators' overview lists workspaces of deactivated owners first, with their size and who could take over",
          arguments: StorageBackend.allCases)
    func overview(_ backend: StorageBackend) async throws {
        try await withTeam(backend) { node, team in
            let eve = try await node.person("eve@example.com")
            let t = Team.time
            for sql in [
                "UPDATE users SET deactivated_at = \(t) WHERE id = \(team.carol)",
                "UPDATE users SET password_hash = '', nickname = 'Eve' WHERE id = \(eve)",
                "INSERT INTO workspaces (id, name, name_key, owner_id, created_at, updated_at) VALUES (12, 'Bob''s', 'bob''s', \(team.bob), \(t), \(t))",
                "INSERT INTO workspace_members (workspace_id, user_id, role, joined_at) VALUES (12, \(team.bob), 'owner', \(t))",
                "INSERT INTO workspace_members (workspace_id, user_id, role, joined_at) VALUES (10, \(team.dan), 'member', \(t))",
                "INSERT INTO workspace_members (workspace_id, user_id, role, joined_at) VALUES (10, \(eve), 'member', \(t))",
                "INSERT INTO files (id, sha256, mime, size, original_name, created_at) VALUES (11, 'bb', 'text/plain', 234, 'notes.txt', \(t))",
                "INSERT INTO files (id, sha256, mime, size, original_name, created_at) VALUES (12, 'cc', 'text/plain', 5000, 'other.txt', \(t))",
                team.post(60, in: 100, by: team.mina), team.post(61, in: 101, by: team.bob, root: nil),
                team.post(62, in: 100, by: team.bob, root: 60), team.post(63, in: 103, by: team.bob, deleted: true),
                team.post(64, in: 110, by: team.carol),
                "INSERT INTO message_files (message_id, file_id, position) VALUES (60, 10, 0)",
                "INSERT INTO message_files (message_id, file_id, position) VALUES (60, 11, 1)",
                "INSERT INTO message_files (message_id, file_id, position) VALUES (61, 10, 0)",
                "INSERT INTO message_files (message_id, file_id, position) VALUES (64, 12, 0)",
            ] { try await node.fixture(sql) }

            let summaries = try await node.answer { try $0.workspaces.overview() }
            #expect(summaries.map(\.id) == [11, 10, 12])
            let other = try #require(summaries.first)
            #expect(other.name == "Other" && other.ownerId == team.carol && other.ownerNickname == "Carol")
            #expect(other.ownerEmail == "carol@example.com" && other.ownerDeactivated)
            #expect(other.members == 2 && other.messages == 1 && other.fileBytes == 5000)
            #expect(other.successors.map(\.id) == [team.mina])

            let main = try #require(summaries.first { $0.id == 10 })
            #expect(!main.ownerDeactivated && main.ownerNickname == "Mina" && main.members == 5)
            #expect(main.messages == 3, "not the deleted one")
            #expect(main.fileBytes == 1234, "a file attached twice counts once")
            #expect(main.successors.map(\.id) == [team.dan, team.bob] && main.successors.map(\.nickname) == ["Dan", "bob"],
                    "active members with a password, by nickname's bytes")

            let bobs = try #require(summaries.last)
            #expect(bobs.name == "Bob's" && bobs.members == 1 && bobs.messages == 0 && bobs.fileBytes == 0 && bobs.successors.isEmpty)
        }
    }
}
