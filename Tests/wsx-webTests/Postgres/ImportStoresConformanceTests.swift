import Foundation
import Testing
import Views
@testable import wsx_web

/// What a Slack import and export and `seed` write and read, through each backend's whole
/// transaction: the same tests on both (`ConformanceNode`).
@Suite("Slack import, export and seed on both backends", .timeLimit(.minutes(5)))
struct ImportStoresConformanceTests {
    private typealias Node = ConformanceNode<any StoreTransaction>

    private func withNode(_ backend: StorageBackend, _ body: (Node, ConformanceTeam) async throws -> Void) async throws {
        try await withTransactionNodes(backend) { nodes in try await body(nodes[0], try await ConformanceTeam.make(on: nodes[0])) }
    }

    private static let now = Date(timeIntervalSince1970: 1_793_600_000)

    @Test("Slack ids pair once each way, and a conversation's message keys come back in key order", arguments: StorageBackend.allCases)
    func slackIds(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node, team in
            try await node.answer { tx in
                try tx.slackImport.remember(workspaceId: 10, kind: .user, slackId: "U2", localId: team.mina)
                try tx.slackImport.remember(workspaceId: 10, kind: .user, slackId: "U1", localId: team.mina)
                try tx.slackImport.remember(workspaceId: 10, kind: .user, slackId: "U1", localId: team.bob)
                try tx.slackImport.remember(workspaceId: 11, kind: .user, slackId: "U9", localId: team.carol)
                for key in ["C01/1700000002.000100", "C010/1700000000.000100", "C01/1700000001.000100", "C0/1"] {
                    try tx.slackImport.remember(workspaceId: 10, kind: .message, slackId: key, localId: Int64(key.count))
                }
            }
            #expect(try await node.answer { try $0.slackImport.localIds(workspaceId: 10, kind: .user) } == ["U1": team.mina, "U2": team.mina])
            #expect(try await node.answer { try $0.slackImport.slackIds(workspaceId: 10, kind: .user) } == [team.mina: "U1"], "the first by Slack id stays")
            #expect(try await node.answer { try $0.slackImport.localId(workspaceId: 10, kind: .user, slackId: "U9") } == nil)
            let keys = try await node.answer { try $0.slackImport.messageKeys(workspaceId: 10, conversation: "C01") }.map(\.key)
            #expect(keys == ["C01/1700000001.000100", "C01/1700000002.000100"])
        }
    }

    @Test("an import's workspace, accounts, joins and rooms: made once, found again", arguments: StorageBackend.allCases)
    func workspaces(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node, team in
            let made = try await node.answer { tx in
                try tx.slackImport.createWorkspace(Workspace(name: "Slack 팀", nameKey: "slack 팀", description: "", ownerId: team.mina,
                                                             coverFileId: nil, createdAt: Self.now, updatedAt: Self.now), at: Self.now)
            }
            #expect(try await node.answer { try $0.slackImport.workspace(ownerId: team.mina, nameKey: "slack 팀") }?.id == made.id)
            #expect(try await node.answer { try $0.slackImport.workspaceIds(nameKey: "slack 팀") } == [made.id!])
            #expect(try await node.answer { try $0.slackImport.memberIds(workspaceId: made.id!) } == [team.mina])
            let imported = try await node.answer { tx in
                try tx.slackImport.createAccount(User(email: "old@slack.example", emailKey: "old@slack.example", nickname: "옛 동료", phone: nil,
                                                      passwordHash: "", lang: nil, createdAt: Self.now, updatedAt: Self.now))
            }
            #expect(try await node.answer { try $0.slackImport.users(ids: [imported, 999]) }.map(\.nickname) == ["옛 동료"])
            #expect(team.mina < team.bob)
            #expect(try await node.answer { try $0.slackImport.nicknames(userIds: [team.bob, team.mina]) } == ["민아", "Bob"], "in id order")
            try await node.answer { _ = try $0.messages.insert(roomId: 100, authorId: team.mina, text: "old", html: "", at: Self.now, clientId: nil, thread: nil) }
            #expect(try await node.answer { try $0.slackImport.join(workspaceId: 10, defaultRoom: 100, userId: imported, at: Self.now) })
            #expect(try await node.answer { try $0.slackImport.join(workspaceId: 10, defaultRoom: 100, userId: imported, at: Self.now) } == false)
            #expect(try await node.answer { try $0.readMarks.marker(userId: imported, roomId: 100) }?.unread == 0, "joined having read everything")

            #expect(try await node.answer { try $0.slackImport.channel(workspaceId: 10, nameKey: "random") }?.id == 101)
            #expect(try await node.answer { try $0.slackImport.isChannelNameTaken(workspaceId: 10, nameKey: "lobby") } == false)
            let exported = try await node.answer { try $0.slackImport.exportedRooms(workspaceId: 10, includePrivate: false) }
            #expect(exported.map(\.id) == [100, 101])
            #expect(try await node.answer { try $0.slackImport.exportedRooms(workspaceId: 10, includePrivate: true) }.map(\.id) == [100, 101, 102])
            let members = try await node.answer { try $0.slackImport.roomMembers(workspaceId: 10) }
            #expect(members[101] == [team.mina, team.bob].sorted() && members[102] == [team.mina])
        }
    }

    @Test("an imported message is indexed with its mentions, settles its readers, and its threads are followed, read",
          arguments: StorageBackend.allCases)
    func messages(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node, team in
            let before = try await node.answer { try $0.slackImport.newestTimelineMessage(roomId: 101) }
            #expect(before == 0)
            let root = try await node.answer { tx -> Int64 in
                let rendered = MessageHTML.render("@Bob 배포 회의 #general", members: try tx.slackImport.mentionDirectory(roomId: 101),
                                                  channels: try tx.slackImport.publicChannels(workspaceId: 10))
                return try tx.slackImport.insertMessage(ImportedMessage(roomId: 101, authorId: team.mina, body: "@Bob 배포 회의 #general",
                                                                        rendered: rendered, createdAt: Self.now, editedAt: nil,
                                                                        threadRootId: nil, inTimeline: true))
            }
            let reply = try await node.answer { tx -> Int64 in
                let rendered = MessageHTML.render("네", members: try tx.slackImport.mentionDirectory(roomId: 101))
                return try tx.slackImport.insertMessage(ImportedMessage(roomId: 101, authorId: team.bob, body: "네", rendered: rendered,
                                                                        createdAt: Self.now, editedAt: Self.now, threadRootId: root, inTimeline: false))
            }
            #expect(try await node.answer { try $0.search.messages(matching: "회의", roomIds: [101], beforeId: .max, limit: 5) }.map(\.id) == [root])
            #expect(try await node.answer { try $0.messages.collected(in: .mentions, userId: team.bob, workspaceId: 10, limit: 5) }.map(\.message.id) == [root])
            #expect(try await node.answer { try $0.slackImport.messagesNamingChannels(workspaceId: 10, after: 0) } == [root])
            #expect(try await node.answer { try $0.slackImport.nicknames(roomId: 101) }["Bob"] == team.bob)

            try await node.answer { try $0.slackImport.settle(roomId: 101, members: [team.carol], caughtUpAt: before, at: Self.now) }
            #expect(try await node.answer { try $0.readMarks.marker(userId: team.carol, roomId: 101) }?.lastRead == reply)
            #expect(try await node.answer { try $0.readMarks.marker(userId: team.mina, roomId: 101) }?.lastRead == reply, "caught up before the import")
            try await node.answer { try $0.slackImport.followThreads(roomId: 101, roots: [root]) }
            #expect(try await node.answer { try $0.threads.followers(rootId: root) } == [team.mina, team.bob].sorted())
            #expect(try await node.answer { try $0.threads.lastRead(userId: team.mina, rootId: root) } == reply)

            try await node.answer { try $0.slackImport.setHTML("<p>다시</p>", messageId: root) }
            #expect(try await node.answer { try $0.slackImport.messageTexts(ids: [root]) }.map(\.html) == ["<p>다시</p>"])
            #expect(try await node.answer { try $0.slackImport.pin(messageId: root, roomId: 101, pinnedBy: nil, at: Self.now) })
            #expect(try await node.answer { try $0.slackImport.pin(messageId: root, roomId: 101, pinnedBy: nil, at: Self.now) } == false)
            #expect(try await node.answer { try $0.slackImport.addReaction(messageId: root, emoji: "👍", userId: team.bob, at: Self.now) })
            #expect(try await node.answer { try $0.slackImport.addReaction(messageId: root, emoji: "👍", userId: team.bob, at: Self.now) } == false)
            try await node.answer { try $0.slackImport.markPlaceholder(messageId: root, at: Self.now) }
            let exported = try await node.answer { try $0.slackImport.exportedMessages(roomId: 101) }
            #expect(exported.map(\.id) == [root, reply] && exported[0].isDeleted && exported[1].threadRootId == root && !exported[1].inTimeline)
            #expect(try await node.answer { try $0.slackImport.pins(roomId: 101) }[root]?.pinnedBy == nil)
            #expect(try await node.answer { try $0.slackImport.newestMessageId() } == reply)
        }
    }

    @Test("seed writes members and searchable messages in order", arguments: StorageBackend.allCases)
    func seed(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node, team in
            try await node.answer { try $0.seed.addMember(roomId: 101, userId: team.carol, at: Self.now) }
            try await node.answer { try $0.seed.addMember(roomId: 101, userId: team.carol, at: Self.now) }
            try await node.answer { tx in
                try tx.seed.insert([GeneratedMessage(roomId: 101, authorId: team.mina, body: "첫 번째 점검", html: "<p>첫 번째 점검</p>", createdAt: Self.now),
                                    GeneratedMessage(roomId: 101, authorId: team.bob, body: "두 번째 점검", html: "<p>두 번째 점검</p>", createdAt: Self.now)])
            }
            let found = try await node.answer { try $0.search.messages(matching: "점검", roomIds: [101], beforeId: .max, limit: 5) }
            #expect(found.map(\.body) == ["두 번째 점검", "첫 번째 점검"])
            #expect(try await node.answer { try $0.readMarks.marker(userId: team.carol, roomId: 101) }?.unread == 2)
        }
    }
}
