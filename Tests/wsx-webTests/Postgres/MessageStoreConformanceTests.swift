import Foundation
import HTTPTypes
import Testing
@testable import Uploads
import Views
@testable import wsx_web

/// Messages, workspace memberships and e-mail confirmations, through each backend's whole
/// transaction: the same tests on both (`ConformanceNode`).
@Suite("Messages, memberships and e-mail confirmations on both backends", .timeLimit(.minutes(5)))
struct MessageStoreConformanceTests {
    private typealias Node = ConformanceNode<any StoreTransaction>

    private func withNode(_ backend: StorageBackend, _ body: (Node, ConformanceTeam) async throws -> Void) async throws {
        try await withTransactionNodes(backend) { nodes in try await body(nodes[0], try await ConformanceTeam.make(on: nodes[0])) }
    }

    private static let now = Date(timeIntervalSince1970: 1_793_600_000.125)

    private func access(_ node: Node, _ userId: Int64, workspace: Int64 = 10) async throws -> WorkspaceAccess {
        try #require(try await node.answer { try $0.workspaces.access(workspaceId: workspace, userId: userId) })
    }

    private func post(_ node: Node, _ text: String, in room: Int64, by author: Int64, clientId: String? = nil,
                      thread: ThreadPlacement? = nil) async throws -> Int64 {
        try await node.answer { try $0.messages.insert(roomId: room, authorId: author, text: text, html: "<p>\(text)</p>", at: Self.now,
                                                       clientId: clientId, thread: thread) }
    }

    @Test("a message is stored once per client id, read as a row with its files in order, edited and deleted",
          arguments: StorageBackend.allCases)
    func messages(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node, team in
            let first = try await post(node, "안녕하세요", in: 100, by: team.mina, clientId: "c-1")
            #expect(try await node.answer { try $0.messages.posted(authorId: team.mina, clientId: "c-1") } == first)
            #expect(try await node.answer { try $0.messages.posted(authorId: team.bob, clientId: "c-1") } == nil)
            await #expect(throws: (any Error).self) { _ = try await post(node, "again", in: 100, by: team.mina, clientId: "c-1") }

            let files = try await node.answer { tx in
                try tx.files.insert([PreparedFile(received: .init(field: "files", name: "b.pdf", temporaryURL: URL(fileURLWithPath: "/dev/null"),
                                                                  size: 1, sha256: "b", mimeType: "application/pdf", kind: .document),
                                                  width: nil, height: nil, hasThumbnail: false),
                                     PreparedFile(received: .init(field: "files", name: "a.pdf", temporaryURL: URL(fileURLWithPath: "/dev/null"),
                                                                  size: 2, sha256: "a", mimeType: "application/pdf", kind: .document),
                                                  width: nil, height: nil, hasThumbnail: false)],
                                    uploader: team.mina, at: Self.now)
            }
            try await node.answer { try $0.messages.attach(fileIds: files.map { $0.id! }, to: first) }
            let row = try await node.answer { try $0.messages.row(id: first, hasFiles: true) }
            #expect(row.body == "안녕하세요" && row.bodyHtml == "<p>안녕하세요</p>" && row.authorNickname == "민아" && row.createdAt == Self.now)
            #expect(row.attachments.map(\.originalName) == ["b.pdf", "a.pdf"] && row.inTimeline && !row.isDeleted && !row.authorDeactivated)
            #expect(try await node.answer { try $0.messages.row(id: first, hasFiles: false) }.attachments.isEmpty)
            await #expect(throws: AppError.self) { _ = try await node.answer { try $0.messages.row(id: 999, hasFiles: true) } }

            #expect(try await node.answer { try $0.messages.editCount(id: first) } == 0)
            let edited = Self.now.addingTimeInterval(60)
            try await node.answer { try $0.messages.applyEdit(id: first, text: "안녕!", html: "<p>안녕!</p>", editedAt: edited) }
            #expect(try await node.answer { try $0.messages.editCount(id: first) } == 1)
            let message = try #require(try await node.answer { try $0.messages.message(id: first) })
            #expect(message.body == "안녕!" && message.editedAt == edited && message.threadRootId == nil && message.inTimeline)
            #expect(try await node.answer { try $0.messages.stamp(id: first) }?.editedAt == edited)

            let second = try await post(node, "둘", in: 100, by: team.bob)
            #expect(try await node.answer { try $0.messages.rows(roomId: 100, ids: [second, first, 999]) }.map(\.id) == [first, second])
            #expect(try await node.answer { try $0.messages.rows(roomId: 101, ids: [first]) }.isEmpty)
            #expect(Set(try await node.answer { try $0.messages.rows(ids: [first, second]) }.map(\.id)) == [first, second])
            #expect(try await node.answer { try $0.messages.newestId(roomId: 100) } == second)
            try await node.answer { try $0.messages.delete(id: second) }
            #expect(try await node.answer { try $0.messages.message(id: second) } == nil)
            #expect(try await node.answer { try $0.messages.newestId(roomId: 101) } == 0)
        }
    }

    @Test("the timeline pages around, before and after a message, leaving thread replies out", arguments: StorageBackend.allCases)
    func timeline(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node, team in
            var ids: [Int64] = []
            for index in 1...7 { ids.append(try await post(node, "m\(index)", in: 100, by: team.mina)) }
            _ = try await post(node, "reply", in: 100, by: team.bob, thread: ThreadPlacement(rootId: ids[0], alsoInRoom: false))
            let alsoSent = try await post(node, "also", in: 100, by: team.bob, thread: ThreadPlacement(rootId: ids[0], alsoInRoom: true))
            ids.append(alsoSent)
            let placed = ids
            let latest = try await node.answer { try $0.messages.timeline(roomId: 100, anchor: .latest, size: 3) }
            #expect(latest.messages.map(\.id) == Array(placed.suffix(3)) && latest.hasOlder && !latest.hasNewer)
            let before = try await node.answer { try $0.messages.timeline(roomId: 100, anchor: .before(placed[3]), size: 3) }
            #expect(before.messages.map(\.id) == Array(placed[0...2]) && !before.hasOlder && before.hasNewer)
            let after = try await node.answer { try $0.messages.timeline(roomId: 100, anchor: .after(placed[4]), size: 2) }
            #expect(after.messages.map(\.id) == [placed[5], placed[6]] && after.hasOlder && after.hasNewer)
            let around = try await node.answer { try $0.messages.timeline(roomId: 100, anchor: .around(placed[4]), size: 4) }
            #expect(around.messages.map(\.id) == [placed[2], placed[3], placed[4], placed[5]] && around.hasOlder && around.hasNewer)
            let empty = try await node.answer { try $0.messages.timeline(roomId: 101, anchor: .latest, size: 3) }
            #expect(empty.messages.isEmpty && !empty.hasOlder && !empty.hasNewer)
        }
    }

    @Test("a message is seen by its room's members, changed only while live in a room in use", arguments: StorageBackend.allCases)
    func access(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node, team in
            let inRandom = try await post(node, "random", in: 101, by: team.mina)
            let (bob, carol) = (try await access(node, team.bob), try await access(node, team.carol))
            let seen = try await node.answer { try $0.messages.visible(id: inRandom, bob) }
            #expect(seen.0.id == inRandom && seen.1.id == 101)
            await #expect(throws: AppError.self) { _ = try await node.answer { try $0.messages.visible(id: inRandom, carol) } }
            await #expect(throws: AppError.self) { _ = try await node.answer { try $0.messages.visible(id: 999, bob) } }
            #expect(try await node.answer { try $0.messages.writable(id: inRandom, bob) }.0.id == inRandom)
            try await node.answer { try $0.messages.leavePlaceholder(id: inRandom, at: Self.now) }
            let placeholder = try #require(try await node.answer { try $0.messages.message(id: inRandom) })
            #expect(placeholder.body.isEmpty && placeholder.deletedAt == Self.now)
            await #expect(throws: AppError.self) { _ = try await node.answer { try $0.messages.writable(id: inRandom, bob) } }
            let other = try await post(node, "general", in: 100, by: team.mina)
            try await node.fixture("UPDATE rooms SET archived_at = \(ConformanceTeam.time) WHERE id = 100")
            do {
                _ = try await node.answer { try $0.messages.writable(id: other, bob) }
                Issue.record("an archived room's message was writable")
            } catch let error as AppError {
                #expect(error.status == .conflict)
            }
        }
    }

    @Test("mentions are kept once each; names, nicknames and channels resolve as messages render them",
          arguments: StorageBackend.allCases)
    func mentions(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node, team in
            try await node.fixture("UPDATE users SET nickname = '민아' WHERE id = \(team.carol)")
            #expect(try await node.answer { try $0.messages.memberNicknames(roomId: 100) } == ["민아": min(team.mina, team.carol), "Bob": team.bob])
            #expect(try await node.answer { try $0.messages.workspaceNicknames(roomId: 110) } == [team.carol: "민아"])
            #expect(try await node.answer { try $0.messages.publicChannels(workspaceId: 10) } == ["general": 100, "random": 101])
            let message = try await post(node, "@Bob", in: 100, by: team.mina)
            try await node.answer { try $0.messages.addMentions(messageId: message, userIds: [team.bob, team.carol]) }
            try await node.answer { try $0.messages.addMentions(messageId: message, userIds: [team.bob]) }
            let bobs = try await node.answer { try $0.messages.collected(in: .mentions, userId: team.bob, workspaceId: 10, limit: 10) }
            #expect(bobs.map(\.message.id) == [message] && bobs[0].room.id == 100 && bobs[0].conversationName == nil)
            try await node.answer { try $0.messages.removeMentions(messageId: message) }
            #expect(try await node.answer { try $0.messages.collected(in: .mentions, userId: team.bob, workspaceId: 10, limit: 10) }.isEmpty)
        }
    }

    @Test("saved messages are collected newest saved first, named as the saver sees their conversations",
          arguments: StorageBackend.allCases)
    func collected(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node, team in
            let dm = try await node.answer { tx in
                try tx.rooms.create(Room(workspaceId: 10, kind: .dm, name: "", nameKey: "", description: "", ownerId: nil, isDefault: false,
                                         dmKey: "\(min(team.mina, team.bob)):\(max(team.mina, team.bob))", coverFileId: nil,
                                         createdAt: Self.now, updatedAt: Self.now),
                                    members: [team.mina, team.bob], at: Self.now)
            }
            let inDM = try await post(node, "비밀", in: dm.id!, by: team.mina)
            let inGeneral = try await post(node, "공지", in: 100, by: team.mina)
            let inOther = try await post(node, "lobby", in: 110, by: team.carol)
            _ = try await node.answer { try $0.saved.add(messageId: inGeneral, userId: team.bob, at: Self.now) }
            _ = try await node.answer { try $0.saved.add(messageId: inDM, userId: team.bob, at: Self.now.addingTimeInterval(1)) }
            _ = try await node.answer { try $0.saved.add(messageId: inOther, userId: team.bob, at: Self.now) }
            let saved = try await node.answer { try $0.messages.collected(in: .saved, userId: team.bob, workspaceId: 10, limit: 10) }
            #expect(saved.map(\.message.id) == [inDM, inGeneral])
            #expect(saved[0].conversationName == "민아" && saved[0].room.kind == .dm && saved[1].conversationName == nil)
            #expect(try await node.answer { try $0.messages.collected(in: .saved, userId: team.bob, workspaceId: 10, limit: 1) }.count == 1)
        }
    }

    @Test("joining a workspace puts the person in its default channel and tells it; leaving takes them out and passes their channels",
          arguments: StorageBackend.allCases)
    func membership(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node, team in
            let dana = try await node.person("dana@example.com")
            let workspace = try #require(try await node.answer { try $0.memberships.workspace(id: 10) })
            let user = try #require(try await node.answer { try $0.memberships.user(id: dana) })
            #expect(try await node.answer { try $0.memberships.user(emailKey: "dana@example.com") }?.id == dana)
            #expect(try await node.answer { try $0.memberships.isMember(workspaceId: 10, userId: dana) } == false)
            let before = try await node.answer { try $0.events.latestId() }
            try await node.answer { try $0.memberships.join(workspace: workspace, user: user, at: Self.now) }
            #expect(try await node.answer { try $0.memberships.isMember(workspaceId: 10, userId: dana) })
            #expect(try await node.answer { try $0.rooms.isMember(roomId: 100, userId: dana) })
            let told = try await node.answer { try $0.events.replay(after: before, through: .max, userId: dana, rooms: [100], limit: 10, maxBytes: 1 << 20) }
            #expect(told.map(\.type) == [EventType.roomMemberAdded.rawValue, EventType.workspaceMemberAdded.rawValue])

            let members = try await node.answer { try $0.memberships.members(workspaceId: 10) }
            #expect(members.map(\.nickname) == ["민아", "Bob", "Carol", "Person"], "the owner first, then by name's bytes")
            #expect(members[0].role == .owner && members.dropFirst().allSatisfy { $0.role == .member })

            try await node.fixture("UPDATE rooms SET owner_id = \(team.bob) WHERE id = 101")
            try await node.answer { try $0.memberships.remove(workspace: workspace, userId: team.bob, at: Self.now) }
            #expect(try await node.answer { try $0.memberships.isMember(workspaceId: 10, userId: team.bob) } == false)
            #expect(try await node.answer { try $0.rooms.isMember(roomId: 100, userId: team.bob) } == false)
            #expect(try await node.answer { try $0.rooms.isMember(roomId: 101, userId: team.bob) } == false)
            #expect(try await node.answer { try $0.rooms.room(id: 101) }?.ownerId == team.mina, "his channel passed to the owner")
            #expect(try await node.answer { try $0.memberships.nickname(userId: team.bob) } == "Bob")
        }
    }

    @Test("a read transaction refuses to publish an event", arguments: StorageBackend.allCases)
    func readOnly(_ backend: StorageBackend) async throws {
        switch backend {
        case .sqlite:
            let database = try AppDatabase.open(dataDirectory: try makeEmptyFolder().appendingPathComponent("data").path)
            #expect(throws: (any Error).self) {
                try database.query { tx in try tx.publish(OutgoingEvent(.typing, to: .room(1), payload: ["a": "b"])) }
            }
        case .postgres:
            try await withConformanceNodes(.postgres, sqlite: { _ in PostgresTransactionFactory.unused },
                                           postgres: { PostgresTransactionFactory(session: $0) }) { (nodes: [ConformanceNode<PostgresTransactionFactory>]) in
                let error = try await nodes[0].answer { factory -> String in
                    let read = PostgresTransaction.reading(factory.session!, clock: .system)
                    do {
                        try read.publish(OutgoingEvent(.typing, to: .room(1), payload: ["a": "b"]))
                        return "published"
                    } catch {
                        return "\(error)"
                    }
                }
                #expect(error.contains("read"))
            }
        }
    }

    @Test("a confirmation link is replaced, confirms once until it expires, and its mail is queued", arguments: StorageBackend.allCases)
    func confirmations(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node, team in
            let hour = Self.now.addingTimeInterval(3600)
            try await node.answer { try $0.emailConfirmations.replace(userId: team.bob, tokenHash: "old", emailKey: "bob@example.com", at: Self.now, expiresAt: hour) }
            try await node.answer { try $0.emailConfirmations.replace(userId: team.bob, tokenHash: "new", emailKey: "bob@example.com", at: Self.now, expiresAt: hour) }
            #expect(try await node.answer { try $0.emailConfirmations.live(tokenHash: "old", at: Self.now) } == nil)
            let link = try #require(try await node.answer { try $0.emailConfirmations.live(tokenHash: "new", at: Self.now) })
            #expect(link.userId == team.bob && link.emailKey == "bob@example.com")
            #expect(try await node.answer { try $0.emailConfirmations.live(tokenHash: "new", at: hour) } == nil, "expired at its hour")
            try await node.answer { try $0.emailConfirmations.markUsed(id: link.id, at: Self.now) }
            #expect(try await node.answer { try $0.emailConfirmations.live(tokenHash: "new", at: Self.now) } == nil)
            let queued = try await node.answer { try $0.mail.queueLength() }
            try await node.answer { try $0.emailConfirmations.queueMail(to: "bob@example.com", message: "Subject: 확인\r\n\r\n링크", at: Self.now) }
            #expect(try await node.answer { try $0.mail.queueLength() } == queued + 1)
            try await node.answer { try $0.emailConfirmations.replace(userId: team.carol, tokenHash: "c", emailKey: "carol@example.com", at: Self.now, expiresAt: hour) }
            try await node.answer { try $0.emailConfirmations.removeAll(userId: team.carol) }
            #expect(try await node.answer { try $0.emailConfirmations.live(tokenHash: "c", at: Self.now) } == nil)
        }
    }
}

/// A PostgreSQL session handed out of the harness, to make a read transaction on it.
struct PostgresTransactionFactory: @unchecked Sendable {
    let session: PostgresSession?
    static let unused = PostgresTransactionFactory(session: nil)
}
