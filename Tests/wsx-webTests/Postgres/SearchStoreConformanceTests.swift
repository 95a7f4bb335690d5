import Foundation
import Testing
@testable import wsx_web

/// The workspace's searches: the same tests on each backend (`ConformanceNode`), Korean
/// substrings first.
@Suite("Search on both backends", .timeLimit(.minutes(5)))
struct SearchStoreConformanceTests {
    private func withNode(_ backend: StorageBackend, _ body: (ConformanceNode<any SearchStore>, Int64, Int64) async throws -> Void) async throws {
        try await withConformanceNodes(backend, sqlite: { $0.search }, postgres: { PostgresSearchStore(session: $0) }) {
            (nodes: [ConformanceNode<any SearchStore>]) in
            let node = nodes[0]
            let mina = try await node.person("mina@example.com"), bob = try await node.person("bob@example.com")
            let t = "'2026-11-01 09:00:00.000'"
            for sql in [
                "UPDATE users SET nickname = '김민아' WHERE id = \(mina)",
                "UPDATE users SET nickname = 'Bob Lee' WHERE id = \(bob)",
                "INSERT INTO workspaces (id, name, name_key, owner_id, created_at, updated_at) VALUES (10, '팀', '팀', \(mina), \(t), \(t))",
                "INSERT INTO workspaces (id, name, name_key, owner_id, created_at, updated_at) VALUES (11, 'Other', 'other', \(bob), \(t), \(t))",
                "INSERT INTO workspace_members (workspace_id, user_id, role, joined_at) VALUES (10, \(mina), 'owner', \(t))",
                "INSERT INTO workspace_members (workspace_id, user_id, role, joined_at) VALUES (10, \(bob), 'member', \(t))",
                "INSERT INTO workspace_members (workspace_id, user_id, role, joined_at) VALUES (11, \(bob), 'owner', \(t))",
                "INSERT INTO rooms (id, workspace_id, kind, name, name_key, description, created_at, updated_at) VALUES (100, 10, 'channel', '일반', '일반', '공지와 회의 안내', \(t), \(t))",
                "INSERT INTO rooms (id, workspace_id, kind, name, name_key, description, created_at, updated_at) VALUES (101, 10, 'channel', 'design-회의', 'design-회의', '', \(t), \(t))",
                "INSERT INTO rooms (id, workspace_id, kind, name, name_key, description, visibility, created_at, updated_at) VALUES (102, 10, 'channel', '비밀-회의', '비밀-회의', '', 'private', \(t), \(t))",
                "INSERT INTO rooms (id, workspace_id, kind, name, name_key, description, created_at, updated_at) VALUES (110, 11, 'channel', '회의실', '회의실', '', \(t), \(t))",
                "INSERT INTO room_members (room_id, user_id, joined_at) VALUES (102, \(mina), \(t))",
            ] { try await node.fixture(sql) }
            try await body(node, mina, bob)
        }
    }

    /// Inserts message `id` in `room` by `author` with `text`, and indexes it.
    private func post(_ node: ConformanceNode<any SearchStore>, _ id: Int64, in room: Int64, by author: Int64, _ text: String) async throws {
        let body = text.replacingOccurrences(of: "'", with: "''")
        try await node.fixture("""
            INSERT INTO messages (id, room_id, author_id, body, body_html, created_at) VALUES (\(id), \(room), \(author), '\(body)', '', '2026-11-01 09:00:00.000')
            """)
        try await node.answer { try $0.index(messageId: id, roomId: room, text: text) }
    }

    private func found(_ node: ConformanceNode<any SearchStore>, _ query: String, rooms: [Int64] = [100, 101],
                       before: Int64 = .max, limit: Int = 20) async throws -> [Int64] {
        try await node.answer { try $0.messages(matching: query, roomIds: rooms, beforeId: before, limit: limit) }.map(\.id)
    }

    @Test("Korean is found by any substring of a syllable or more, words by their start, every term must match",
          arguments: StorageBackend.allCases)
    func korean(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node, mina, bob in
            try await post(node, 1, in: 100, by: mina, "내일 회의를 합니다")
            try await post(node, 2, in: 100, by: bob, "Meeting notes: 회의록 올렸어요")
            try await post(node, 3, in: 101, by: mina, "점심 메뉴는 김치찌개")
            #expect(try await found(node, "회의") == [2, 1])
            #expect(try await found(node, "의를") == [1])
            #expect(try await found(node, "회의를 합") == [1])
            #expect(try await found(node, "회") == [2, 1])
            #expect(try await found(node, "찌개") == [3])
            #expect(try await found(node, "회의합").isEmpty, "not a substring of either")
            #expect(try await found(node, "meet") == [2])
            #expect(try await found(node, "MEETING 회의록") == [2])
            #expect(try await found(node, "eting").isEmpty, "words match from their start")
            #expect(try await found(node, "notes 김치").isEmpty, "every term must match in one message")
            #expect(try await found(node, "!!! ...").isEmpty, "nothing searchable")
            #expect(try await found(node, "it's \"quoted\" \\ 'x'").isEmpty, "quotes and backslashes are text, not syntax")
            let hit = try #require(try await node.answer { try $0.messages(matching: "찌개", roomIds: [101], beforeId: .max, limit: 5) }.first)
            #expect(hit.roomId == 101 && hit.body == "점심 메뉴는 김치찌개" && hit.authorNickname == "김민아" && hit.threadRootId == nil)
        }
    }

    @Test("a search keeps to the rooms given, pages newest first below a cursor, and follows re-indexing and deletion",
          arguments: StorageBackend.allCases)
    func scope(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node, mina, _ in
            for id in Int64(1)...5 { try await post(node, id, in: id == 5 ? 102 : 100, by: mina, "배포 \(id)번째 알림") }
            #expect(try await found(node, "배포") == [4, 3, 2, 1])
            #expect(try await found(node, "배포", rooms: [100, 102]) == [5, 4, 3, 2, 1])
            #expect(try await found(node, "배포", rooms: []).isEmpty)
            #expect(try await found(node, "배포", limit: 2) == [4, 3])
            #expect(try await found(node, "배포", before: 3, limit: 2) == [2, 1])

            try await node.fixture("UPDATE messages SET body = '롤백 완료' WHERE id = 4")
            try await node.answer { try $0.index(messageId: 4, roomId: 100, text: "롤백 완료") }
            #expect(try await found(node, "배포") == [3, 2, 1])
            #expect(try await found(node, "롤백") == [4])
            try await node.fixture("DELETE FROM messages WHERE id = 3")
            #expect(try await found(node, "배포") == [2, 1], "a deleted message leaves the index with it")
        }
    }

    @Test("channels by name or description, private ones only for their members; members by name or address",
          arguments: StorageBackend.allCases)
    func channelsAndMembers(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node, mina, bob in
            let pattern = ContainsPattern.of("회의")
            let forBob = try await node.answer { try $0.channels(workspaceId: 10, userId: bob, containing: pattern, afterId: 0, limit: 10) }
            #expect(forBob.map(\.id) == [100, 101], "by description, by name; not the private one nor another workspace's")
            #expect(forBob[0].name == "일반" && forBob[0].description == "공지와 회의 안내")
            let forMina = try await node.answer { try $0.channels(workspaceId: 10, userId: mina, containing: pattern, afterId: 0, limit: 10) }
            #expect(forMina.map(\.id) == [100, 101, 102])
            let after = try await node.answer { try $0.channels(workspaceId: 10, userId: mina, containing: pattern, afterId: 100, limit: 1) }
            #expect(after.map(\.id) == [101])
            let design = try await node.answer { try $0.channels(workspaceId: 10, userId: mina, containing: ContainsPattern.of("design-"), afterId: 0, limit: 10) }
            #expect(design.map(\.id) == [101])

            let byName = try await node.answer { try $0.members(workspaceId: 10, containing: ContainsPattern.of("민아"), afterId: 0, limit: 10) }
            #expect(byName.map(\.id) == [mina] && byName[0].nickname == "김민아" && byName[0].email == "mina@example.com")
            let byAddress = try await node.answer { try $0.members(workspaceId: 10, containing: ContainsPattern.of("example"), afterId: 0, limit: 10) }
            #expect(byAddress.map(\.id) == [mina, bob].sorted())
            let lowered = try await node.answer { try $0.members(workspaceId: 10, containing: ContainsPattern.of("bob l"), afterId: 0, limit: 10) }
            #expect(lowered.map(\.id) == [bob])
            #expect(try await node.answer { try $0.members(workspaceId: 11, containing: ContainsPattern.of("민아"), afterId: 0, limit: 10) }.isEmpty)
        }
    }

    @Test("files by name in live messages of the rooms given, newest first", arguments: StorageBackend.allCases)
    func files(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node, mina, _ in
            for (id, room) in [(1, 100), (2, 101), (3, 100), (4, 102)] as [(Int64, Int64)] {
                try await post(node, id, in: room, by: mina, "파일 \(id)")
                try await node.fixture("""
                    INSERT INTO files (id, sha256, mime, size, original_name, created_at) VALUES (\(id * 10), 'h\(id)', 'application/pdf', \(id * 100), '회의록_\(id).PDF', '2026-11-01 09:00:00.000')
                    """)
                try await node.fixture("INSERT INTO message_files (message_id, file_id, position) VALUES (\(id), \(id * 10), 0)")
            }
            try await node.fixture("UPDATE messages SET deleted_at = '2026-11-02 09:00:00.000' WHERE id = 3")
            let found = try await node.answer { try $0.files(containing: ContainsPattern.of("회의록_"), roomIds: [100, 101], limit: 10) }
            #expect(found.map(\.message.id) == [2, 1])
            #expect(found[0].name == "회의록_2.PDF" && found[0].size == 200 && found[0].message.roomId == 101 && found[0].message.authorNickname == "김민아")
            #expect(try await node.answer { try $0.files(containing: ContainsPattern.of(".pdf"), roomIds: [100, 101, 102], limit: 2) }.map(\.message.id) == [4, 2])
            #expect(try await node.answer { try $0.files(containing: ContainsPattern.of("회의록"), roomIds: [], limit: 10) }.isEmpty)
        }
    }
}
