import Foundation
import Testing
import Views
@testable import wsx_web

/// Read markers and unread counts, notification levels and the last room viewed: the same tests
/// on each backend (`ConformanceNode`). The rows arrive as plain inserts, so each backend's
/// triggers do the counting.
@Suite("Read marks, notification levels and last rooms on both backends", .timeLimit(.minutes(5)))
struct ReadMarkStoresConformanceTests {
    typealias Stores = (marks: any ReadMarkStore, notify: any NotifySettingStore, lastRooms: any LastRoomStore)

    private func withNode(_ backend: StorageBackend, _ body: (ConformanceNode<Stores>, ConformanceTeam) async throws -> Void) async throws {
        try await withConformanceNodes(backend, sqlite: { ($0.readMarks, $0.notifySettings, $0.lastRooms) },
                                       postgres: { (PostgresReadMarkStore(session: $0), PostgresNotifySettingStore(session: $0),
                                                    PostgresLastRoomStore(session: $0)) }) { (nodes: [ConformanceNode<Stores>]) in
            let node = nodes[0]
            try await body(node, try await ConformanceTeam.make(on: node))
        }
    }

    @Test("posts count as unread for the others, mentions among them are counted, and reading all clears every member",
          arguments: StorageBackend.allCases)
    func markers(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node, team in
            for (id, room) in [(1, 100), (2, 100), (3, 100), (4, 101)] as [(Int64, Int64)] {
                try await node.fixture(team.post(id, in: room, by: team.mina))
            }
            try await node.fixture("INSERT INTO mentions (user_id, message_id) VALUES (\(team.bob), 2)")
            try await node.fixture("INSERT INTO mentions (user_id, message_id) VALUES (\(team.bob), 4)")

            let bob = try await node.answer { try $0.marks.markers(userId: team.bob, workspaceId: 10) }
            #expect(bob == [100: RoomMarker(unread: 3, lastRead: 0, mentions: 1), 101: RoomMarker(unread: 1, lastRead: 0, mentions: 1)])
            let mina = try await node.answer { try $0.marks.markers(userId: team.mina, workspaceId: 10) }
            #expect(mina[100]?.unread == 0 && mina[102] != nil && mina.count == 3, "her own posts are not unread to her")
            #expect(try await node.answer { try $0.marks.marker(userId: team.carol, roomId: 100) } == RoomMarker(unread: 3, lastRead: 0))
            #expect(try await node.answer { try $0.marks.marker(userId: team.carol, roomId: 101) } == nil, "not in #random")
            #expect(try await node.answer { try $0.marks.markers(userId: team.carol, workspaceId: 11) } == [110: RoomMarker(unread: 0, lastRead: 0)])

            try await node.answer { try $0.marks.markAllRead(roomId: 100) }
            #expect(try await node.answer { try $0.marks.marker(userId: team.bob, roomId: 100) } == RoomMarker(unread: 0, lastRead: 3))
            let receipts = try await node.answer { try $0.marks.receipts(roomId: 100) }
            #expect(receipts.members.map(\.userId) == [team.mina, team.bob, team.carol].sorted())
            #expect(receipts.members.allSatisfy { $0.lastRead == 3 })
            #expect(try await node.answer { try $0.marks.marker(userId: team.bob, roomId: 101) }?.unread == 1, "other rooms keep theirs")
        }
    }

    @Test("unread thread replies count in followed threads of rooms the follower is in, with the replies that mention them",
          arguments: StorageBackend.allCases)
    func threads(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node, team in
            try await node.fixture(team.post(1, in: 100, by: team.bob))
            try await node.fixture(team.post(2, in: 100, by: team.mina, root: 1))
            try await node.fixture(team.post(3, in: 100, by: team.mina, root: 1))
            try await node.fixture("INSERT INTO mentions (user_id, message_id) VALUES (\(team.bob), 3)")
            try await node.fixture("INSERT INTO thread_follows (user_id, root_id, room_id, last_read_id, unread_count) VALUES (\(team.bob), 1, 100, 1, 2)")
            try await node.fixture("INSERT INTO thread_follows (user_id, root_id, room_id, last_read_id, unread_count) VALUES (\(team.carol), 1, 100, 3, 0)")

            let bob = try await node.answer { try $0.marks.threadUnread(userId: team.bob, workspaceId: 10) }
            #expect(bob.replies == 2 && bob.mentions == 1)
            let carol = try await node.answer { try $0.marks.threadUnread(userId: team.carol, workspaceId: 10) }
            #expect(carol.replies == 0 && carol.mentions == 0)
            #expect(try await node.answer { try $0.marks.threadUnread(userId: team.bob, workspaceId: 11) }.replies == 0)

            try await node.fixture("UPDATE rooms SET archived_at = \(ConformanceTeam.time) WHERE id = 100")
            #expect(try await node.answer { try $0.marks.threadUnread(userId: team.bob, workspaceId: 10) }.replies == 0,
                    "an archived room's threads count nothing")
        }
    }

    @Test("a member sets a room's level and their default; a non-member changes nothing", arguments: StorageBackend.allCases)
    func levels(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node, team in
            #expect(try await node.answer { try $0.notify.setLevel(.mute, roomId: 101, userId: team.bob) })
            #expect(try await node.answer { try $0.notify.setLevel(.all, roomId: 101, userId: team.carol) } == false)
            #expect(try await node.answer { try $0.notify.setLevel(nil, roomId: 101, userId: team.bob) })
            #expect(try await node.answer { try $0.notify.defaultLevel(userId: team.bob) } == NotifyLevel.standard.rawValue)
            try await node.answer { try $0.notify.setDefault(.all, userId: team.bob) }
            #expect(try await node.answer { try $0.notify.defaultLevel(userId: team.bob) } == "all")
            #expect(try await node.answer { try $0.notify.defaultLevel(userId: 999_999) } == nil)
        }
    }

    @Test("the last room viewed is where one returns while one may read it; else the first workspace's default channel",
          arguments: StorageBackend.allCases)
    func lastRooms(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node, team in
            #expect(try await node.answer { try $0.lastRooms.lastViewed(userId: team.bob) } == nil)
            try await node.answer { try $0.lastRooms.setViewed(roomId: 100, userId: team.bob) }
            try await node.answer { try $0.lastRooms.setViewed(roomId: 101, userId: team.bob) }
            let last = try #require(try await node.answer { try $0.lastRooms.lastViewed(userId: team.bob) })
            #expect(last.id == 101 && last.name == "random" && last.kind == .channel && last.workspaceId == 10 && !last.isDefault)

            try await node.answer { try $0.lastRooms.setViewed(roomId: 102, userId: team.carol) }
            #expect(try await node.answer { try $0.lastRooms.lastViewed(userId: team.carol) } == nil, "a private channel she is not in")
            let first = try #require(try await node.answer { try $0.lastRooms.firstDefaultRoom(userId: team.carol) })
            #expect(first.id == 110 && first.isDefault && first.visibility == .public, "the workspace she joined first")
            #expect(try await node.answer { try $0.lastRooms.firstDefaultRoom(userId: team.bob) }?.id == 100)
        }
    }
}
