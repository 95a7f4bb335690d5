import Foundation
import Logging
import PostgresNIO
import Testing
@testable import wsx_web

/// Several nodes on one PostgreSQL database: every node's feed delivers every node's events, in
/// commit order, each once, also after its listening connection dropped.
@Suite("PostgreSQL nodes share their events", .timeLimit(.minutes(5)))
struct PostgresNodesTests {
    private static let logger = Logger(label: "test.postgres")

    /// Opens `count` nodes on a new database, starts their feeds, and closes them afterwards.
    private func withNodes(_ count: Int, _ body: ([PostgresBackend]) async throws -> Void) async throws {
        let address = try await PostgresTestCluster.shared().database()
        var nodes: [PostgresBackend] = []
        do {
            for _ in 0..<count { nodes.append(try await PostgresBackend.open(address: address, logger: Self.logger, sessionCount: 3)) }
            for node in nodes { node.feed.start() }
            try await body(nodes)
        } catch {
            for node in nodes { await node.close() }
            throw error
        }
        for node in nodes { await node.close() }
    }

    /// What `feed` delivers until it has delivered `id`.
    private func collect(_ feed: PostgresEventFeed, through id: Int64) async -> [PostgresStoredEvent] {
        var got: [PostgresStoredEvent] = []
        for await page in feed.events {
            got += page
            if let last = got.last, last.id >= id { break }
        }
        return got
    }

    /// A write on `node` that publishes `count` events to room `room`, tagged `tag`; answers their ids.
    private func publish(on node: PostgresBackend, count: Int, room: Int64, tag: String) async throws -> [Int64] {
        try await node.write { tx in
            try (0..<count).map { index in
                try tx.publish(OutgoingEvent(.typing, to: .room(room), payload: ["tag": tag, "n": String(index)]))
            }
        }
    }

    @Test("writers racing on two nodes: both feeds deliver the same gap-free sequence, in id order, each event once")
    func racing() async throws {
        try await withNodes(2) { nodes in
            let ids = try await withThrowingTaskGroup(of: [Int64].self) { group in
                for writer in 0..<6 {
                    group.addTask {
                        var ids: [Int64] = []
                        for round in 0..<20 {
                            ids += try await publish(on: nodes[writer % 2], count: 1 + round % 2, room: Int64(writer), tag: "w\(writer)r\(round)")
                        }
                        return ids
                    }
                }
                return try await group.reduce(into: [Int64]()) { $0 += $1 }
            }
            #expect(ids.count == 6 * 30)
            #expect(Set(ids) == Set(1...Int64(ids.count)), "gap-free ids")
            let newest = Int64(ids.count)
            async let first = collect(nodes[0].feed, through: newest)
            async let second = collect(nodes[1].feed, through: newest)
            let (a, b) = await (first, second)
            #expect(a.map(\.id) == Array(1...newest))
            #expect(a == b, "both nodes deliver the same events")
            let typing = try #require(a.first)
            #expect(typing.type == EventType.typing.rawValue && typing.userId == nil && typing.roomId != nil)
            let fields = try JSONDecoder().decode([String: String].self, from: Data(typing.payload.utf8))
            #expect(fields["tag"]?.hasPrefix("w") == true)
        }
    }

    @Test("a node whose listening connection drops catches up from the table: nothing missed, nothing twice")
    func reconnect() async throws {
        try await withNodes(2) { nodes in
            let early = try await publish(on: nodes[0], count: 3, room: 1, tag: "early")
            let seen = await collect(nodes[1].feed, through: early.last!)
            #expect(seen.map(\.id) == early)
            #expect(nodes[1].feed.connectionCount == 1)

            // Ends every node's listening connection, as a restarted server or a network cut would.
            let ended = try await nodes[0].write { tx in
                try tx.inspection.integer("""
                    SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity
                    WHERE datname = current_database() AND application_name = ?
                    """, [PostgresEventFeed.applicationName])
            }
            #expect(ended == 2)
            var later: [Int64] = []
            for round in 0..<5 { later += try await publish(on: nodes[0], count: 2, room: 1, tag: "later\(round)") }
            let after = await collect(nodes[1].feed, through: later.last!)
            #expect(after.map(\.id) == later, "the events committed while it was away, each once")
            #expect(nodes[1].feed.connectionCount >= 2, "it listened again")
            #expect(nodes[1].feed.lastDelivered == later.last!)
        }
    }

    @Test("what another node's hub applies travels with the event: membership changes and the sessions it ends")
    func delivery() async throws {
        try await withNodes(2) { nodes in
            let changes: [MembershipChange] = [.added(room: 7, users: [1, 2]), .removed(room: 7, users: [2]), .roomsDeleted(rooms: [7, 8])]
            let ids = try await nodes[0].write { tx in
                var ids = try changes.map { change in
                    try tx.publish(OutgoingEvent(.roomMemberAdded, to: .room(7), payload: ["room": "7"], membership: change))
                }
                ids.append(try tx.publish(OutgoingEvent(.sessionRevoked, to: .user(3), payload: ["user": "3"], closesSessions: [41, 42])))
                var plain = OutgoingEvent(.messageCreated, to: .room(7), payload: ["html": "<p>안녕</p>"])
                plain.messageId = 99
                ids.append(try tx.publish(plain))
                return ids
            }
            let got = await collect(nodes[1].feed, through: ids.last!).map(\.committed)
            #expect(got.map(\.id) == ids)
            #expect(got.prefix(3).map(\.event.membership) == changes)
            #expect(got[3].event.closesSessions == [41, 42] && got[3].event.audience == .user(3) && got[3].event.membership == nil)
            #expect(got[4].event.messageId == 99 && got[4].event.closesSessions.isEmpty && got[4].event.type == .messageCreated)
        }
    }

    @Test("a secret one node makes is every node's: the first made wins, later ones read it")
    func secrets() async throws {
        try await withNodes(2) { nodes in
            let first = try SecretKeeper.database(nodes[0]).load("server-key") { Data("made on node 0".utf8) }
            let second = try SecretKeeper.database(nodes[1]).load("server-key") { Data("made on node 1".utf8) }
            #expect(first == Data("made on node 0".utf8) && second == first)
            let keys = (try ServerKey(keeper: .database(nodes[0])), try ServerKey(keeper: .database(nodes[1])))
            #expect(keys.0.code("invite", "a@example.com") == keys.1.code("invite", "a@example.com"))
            let other = try SecretKeeper.database(nodes[1]).load("sandbox-secret")
            #expect(other != first && !other.isEmpty, "each name its own secret")
        }
    }

    @Test("a membership change reads back from its text; text that is not one is refused")
    func membershipText() {
        for change in [MembershipChange.added(room: 1, users: [2, 3]), .removed(room: 9, users: []), .roomsDeleted(rooms: [4, 5])] {
            #expect(MembershipChange(text: change.text) == change)
        }
        #expect(MembershipChange.added(room: 1, users: [2, 3]).text == "added:1:2,3")
        for text in ["", "added:1", "added:x:2", "removed:1:2,y", "deleted:1:2", "moved:1:2"] {
            #expect(MembershipChange(text: text) == nil, "\(text)")
        }
        #expect(MembershipChange(text: "deleted:") == .roomsDeleted(rooms: []))
    }

    @Test("sessions cut off are replaced: a query fails at once while the database refuses, and works once it is back")
    func cutOff() async throws {
        try await withNodes(1) { nodes in
            let cluster = try await PostgresTestCluster.shared()
            let database = try await nodes[0].query { tx in try tx.inspection.rows("SELECT current_database()", [])[0][0] }
            func admin(_ sql: String) async throws {
                try await PostgresConnector(address: cluster.address(database: "postgres"), logger: Self.logger).withConnection { connection in
                    _ = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: Self.logger).collect()
                }
            }
            try await admin("ALTER DATABASE \(database) ALLOW_CONNECTIONS false")
            try await admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(database)'")
            try await Task.sleep(for: .milliseconds(200))
            let started = ContinuousClock.now
            await #expect(throws: (any Error).self) { _ = try await nodes[0].query { tx in try tx.events.latestId() } }
            #expect(ContinuousClock.now - started < .seconds(15), "an error, not a hang")
            try await admin("ALTER DATABASE \(database) ALLOW_CONNECTIONS true")
            #expect(try await nodes[0].query { tx in try tx.events.latestId() } == 0, "a new connection took the old one's place")
            _ = try await publish(on: nodes[0], count: 1, room: 1, tag: "back")
        }
    }

    @Test("a rolled-back write leaves no event and no gap; a read transaction cannot write")
    func rollback() async throws {
        try await withNodes(1) { nodes in
            struct Abandoned: Error {}
            await #expect(throws: Abandoned.self) {
                _ = try await nodes[0].write { tx -> Int64 in
                    _ = try tx.publish(OutgoingEvent(.typing, to: .room(1), payload: ["tag": "gone"]))
                    throw Abandoned()
                }
            }
            let kept = try await publish(on: nodes[0], count: 1, room: 1, tag: "kept")
            #expect(kept == [1], "the abandoned id was never taken")
            #expect(await collect(nodes[0].feed, through: 1).map(\.id) == [1])
            await #expect(throws: (any Error).self) {
                try await nodes[0].query { tx in try tx.accounts.setLanguage("ko", userId: 1) }
            }
            #expect(try await nodes[0].query { tx in try tx.events.latestId() } == 1)
        }
    }

    @Test("posts racing into one room on two nodes never deadlock on its members' unread counts, and every count is exact")
    func postsIntoOneRoom() async throws {
        try await withNodes(2) { nodes in
            let (room, people) = try nodes[0].withSessionNow { session -> (Int64, [Int64]) in
                let rows = PostgresConformanceRows(session: session)
                let people = try (0..<40).map { try rows.person("p\($0)@example.com") }
                let room = try rows.room(workspaceId: try rows.workspace("팀", ownerId: people[0]), kind: .channel, name: "general")
                for person in people { try rows.join(roomId: room, userId: person) }
                return (room, people)
            }
            let writers = 8, posts = 15
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<writers {
                    group.addTask {
                        for index in 0..<posts {
                            _ = try await nodes[writer % 2].write { tx in
                                let id = try tx.messages.insert(roomId: room, authorId: people[writer], text: "w\(writer) #\(index)", html: "",
                                                                at: Date(), clientId: nil, thread: nil)
                                return try tx.publish(OutgoingEvent(.messageCreated, to: .room(room), payload: ["id": String(id)]))
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            let counts = try nodes[1].withSessionNow { session in
                try session.run("SELECT user_id, unread_count FROM room_members WHERE room_id = \(room)").map { try $0.decode((Int64, Int).self) }
            }
            let expected = Dictionary(uniqueKeysWithValues: people.enumerated().map { index, person in
                (person, writers * posts - (index < writers ? posts : 0))
            })
            #expect(Dictionary(uniqueKeysWithValues: counts) == expected, "each member counts every post but their own")
        }
    }
}
