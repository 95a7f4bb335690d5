import Foundation
import Testing
@testable import wsx_web

/// Threads and what decorates messages (saves, reactions, link cards, pins): the same tests on
/// each backend (`ConformanceNode`).
@Suite("Threads, saves, reactions, cards and pins on both backends", .timeLimit(.minutes(5)))
struct ThreadAndDecorationStoresConformanceTests {
    struct Stores {
        let threads: any ThreadStore
        let saved: any SavedMessageStore
        let reactions: any ReactionStore
        let previews: any LinkPreviewStore
        let pins: any PinStore
    }

    private func withNode(_ backend: StorageBackend, _ body: (ConformanceNode<Stores>, ConformanceTeam) async throws -> Void) async throws {
        try await withConformanceNodes(backend, sqlite: { tx in
            Stores(threads: tx.threads, saved: tx.saved, reactions: tx.reactions, previews: tx.linkPreviews, pins: tx.pins)
        }, postgres: { session in
            Stores(threads: PostgresThreadStore(session: session), saved: PostgresSavedMessageStore(session: session),
                   reactions: PostgresReactionStore(session: session), previews: PostgresLinkPreviewStore(session: session),
                   pins: PostgresPinStore(session: session))
        }) { (nodes: [ConformanceNode<Stores>]) in
            try await body(nodes[0], try await ConformanceTeam.make(on: nodes[0]))
        }
    }

    @Test("a thread's root, replies and summary; followers join with the first reply and count what they have not read",
          arguments: StorageBackend.allCases)
    func threads(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node, team in
            try await node.fixture(team.post(1, in: 100, by: team.mina))
            try await node.fixture("INSERT INTO mentions (user_id, message_id) VALUES (\(team.carol), 1)")
            try await node.answer { try $0.threads.requireRoot(id: 1, roomId: 100) }
            await #expect(throws: AppError.self) { try await node.answer { try $0.threads.requireRoot(id: 1, roomId: 101) } }
            await #expect(throws: AppError.self) { try await node.answer { try $0.threads.requireRoot(id: 99, roomId: 100) } }
            #expect(try await node.answer { try $0.threads.hasReplies(rootId: 1) } == false)
            #expect(try await node.answer { try $0.threads.summaries(rootIds: [1]) }.isEmpty)

            try await node.fixture(team.post(2, in: 100, by: team.bob, root: 1))
            let followers = try await node.answer { try $0.threads.follow(rootId: 1, roomId: 100, replyId: 2, authorId: team.bob, mentioned: []) }
            #expect(followers == [team.mina, team.bob, team.carol].sorted(), "the writer, the root's author and the people it mentions")
            await #expect(throws: AppError.self) { try await node.answer { try $0.threads.requireRoot(id: 2, roomId: 100) } }
            #expect(try await node.answer { try $0.threads.lastRead(userId: team.bob, rootId: 1) } == 2)
            #expect(try await node.answer { try $0.threads.lastRead(userId: team.mina, rootId: 1) } == 0)

            try await node.fixture(team.post(3, in: 100, by: team.mina, root: 1))
            _ = try await node.answer { try $0.threads.follow(rootId: 1, roomId: 100, replyId: 3, authorId: team.mina, mentioned: []) }
            #expect(try await node.answer { try $0.threads.replyCount(rootId: 1) } == 2)
            #expect(try await node.answer { try $0.threads.newestReplyId(rootId: 1) } == 3)
            #expect(try await node.answer { try $0.threads.newestReplyId(rootId: 9) } == 0)
            #expect(try await node.answer { try $0.threads.unreadTotal(userId: team.bob, workspaceId: 10) } == 1, "Mina's reply")
            #expect(try await node.answer { try $0.threads.unreadTotal(userId: team.carol, workspaceId: 10) } == 2,
                    "joined with the first reply, which she has not read either")
            #expect(try await node.answer { try $0.threads.unreadTotal(userId: team.mina, workspaceId: 10) } == 0)

            let summary = try #require(try await node.answer { try $0.threads.summaries(rootIds: [1, 9]) }[1])
            #expect(summary.replyCount == 2 && summary.lastReplyId == 3 && summary.repliers.map(\.nickname) == ["민아", "Bob"])
            #expect(summary.lastReplyAt == Date(timeIntervalSince1970: 1_793_523_600), "2026-11-01 09:00 UTC")
            let replies = try await node.answer { try $0.threads.replies(rootId: 1, before: nil, limit: 1) }
            #expect(replies.stamps.map(\.id) == [3] && replies.hasOlder)
            let older = try await node.answer { try $0.threads.replies(rootId: 1, before: 3, limit: 5) }
            #expect(older.stamps.map(\.id) == [2] && !older.hasOlder && older.stamps[0].authorNickname == "Bob")

            #expect(try await node.answer { try $0.threads.advanceMarker(userId: team.bob, rootId: 1, to: 3) })
            #expect(try await node.answer { try $0.threads.advanceMarker(userId: team.bob, rootId: 1, to: 2) } == false, "never back")
            let reply = try #require(try await node.answer { try $0.threads.followers(rootId: 1) }.first)
            #expect(reply == min(team.mina, team.bob, team.carol))
            let removed = Message(id: 3, roomId: 100, authorId: team.mina, body: "m3", bodyHtml: "", createdAt: Date(), threadRootId: 1, inTimeline: false)
            try await node.answer { try $0.threads.replyRemoved(removed) }
            #expect(try await node.answer { try $0.threads.unreadTotal(userId: team.carol, workspaceId: 10) } == 1)
        }
    }

    @Test("following by hand starts with everything read, stops, and lists threads by their latest reply",
          arguments: StorageBackend.allCases)
    func following(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node, team in
            for (id, root) in [(1, nil), (2, nil), (3, 1), (4, 2), (5, 1), (6, nil)] as [(Int64, Int64?)] {
                try await node.fixture(team.post(id, in: 100, by: team.mina, root: root))
            }
            #expect(try await node.answer { try $0.threads.startFollowing(userId: team.bob, rootId: 1, roomId: 100) })
            #expect(try await node.answer { try $0.threads.startFollowing(userId: team.bob, rootId: 1, roomId: 100) } == false)
            #expect(try await node.answer { try $0.threads.lastRead(userId: team.bob, rootId: 1) } == 5)
            _ = try await node.answer { try $0.threads.startFollowing(userId: team.bob, rootId: 2, roomId: 100) }
            _ = try await node.answer { try $0.threads.startFollowing(userId: team.bob, rootId: 6, roomId: 100) }
            let followed = try await node.answer { try $0.threads.followed(userId: team.bob, workspaceId: 10, limit: 10) }
            #expect(followed.map(\.rootId) == [1, 2, 6], "latest reply first; one without replies last")
            #expect(followed.allSatisfy { $0.unread == 0 })
            #expect(try await node.answer { try $0.threads.followed(userId: team.bob, workspaceId: 10, limit: 1) }.map(\.rootId) == [1])
            #expect(try await node.answer { try $0.threads.stopFollowing(userId: team.bob, rootId: 1) })
            #expect(try await node.answer { try $0.threads.stopFollowing(userId: team.bob, rootId: 1) } == false)
            #expect(try await node.answer { try $0.threads.lastRead(userId: team.bob, rootId: 1) } == nil)
        }
    }

    @Test("saving, reacting and pinning happen once each and are undone once", arguments: StorageBackend.allCases)
    func decorations(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node, team in
            for id in Int64(1)...3 { try await node.fixture(team.post(id, in: 100, by: team.mina)) }
            let now = Date(timeIntervalSince1970: 1_790_000_000)
            let saved = try await node.answer { try $0.saved.add(messageId: 1, userId: team.bob, at: now) }
            let savedAgain = try await node.answer { try $0.saved.add(messageId: 1, userId: team.bob, at: now) }
            #expect(saved && !savedAgain)
            _ = try await node.answer { try $0.saved.add(messageId: 2, userId: team.bob, at: now) }
            #expect(try await node.answer { try $0.saved.messageIds(userId: team.bob) } == [1, 2])
            #expect(try await node.answer { try $0.saved.remove(messageId: 1, userId: team.bob) })
            #expect(try await node.answer { try $0.saved.remove(messageId: 1, userId: team.bob) } == false)

            try await node.answer { try $0.reactions.add(messageId: 1, emoji: "👍", userId: team.bob, at: now) }
            try await node.answer { try $0.reactions.add(messageId: 1, emoji: "🎉", userId: team.carol, at: now) }
            try await node.answer { try $0.reactions.add(messageId: 1, emoji: "👍", userId: team.mina, at: now) }
            await #expect(throws: (any Error).self) {
                try await node.answer { try $0.reactions.add(messageId: 1, emoji: "👍", userId: team.mina, at: now) }
            }
            #expect(try await node.answer { try $0.reactions.emojiCount(messageId: 1) } == 2)
            #expect(try await node.answer { try $0.reactions.isUsed(messageId: 1, emoji: "🎉") })
            #expect(try await node.answer { try $0.reactions.hasAny(messageId: 2) } == false)
            let groups = try await node.answer { try $0.reactions.groups(messageIds: [1, 2]) }
            #expect(groups == [1: [ReactionGroup(emoji: "👍", userIds: [team.bob, team.mina], names: ["Bob", "민아"]),
                                   ReactionGroup(emoji: "🎉", userIds: [team.carol], names: ["Carol"])]])
            #expect(try await node.answer { try $0.reactions.remove(messageId: 1, emoji: "🎉", userId: team.carol) })
            #expect(try await node.answer { try $0.reactions.remove(messageId: 1, emoji: "🎉", userId: team.carol) } == false)
            #expect(try await node.answer { try $0.reactions.isUsed(messageId: 1, emoji: "🎉") } == false)

            let pinned1 = try await node.answer { try $0.pins.pin(messageId: 1, roomId: 100, by: team.bob, at: now) }
            let pinnedAgain = try await node.answer { try $0.pins.pin(messageId: 1, roomId: 100, by: team.bob, at: now) }
            #expect(pinned1 && !pinnedAgain)
            _ = try await node.answer { try $0.pins.pin(messageId: 3, roomId: 100, by: team.bob, at: now.addingTimeInterval(1)) }
            #expect(try await node.answer { try $0.pins.count(roomId: 100) } == 2)
            #expect(try await node.answer { try $0.pins.pinned(among: [1, 2, 3]) } == [1, 3])
            #expect(try await node.answer { try $0.pins.isPinned(messageId: 2) } == false)
            let pinned = try await node.answer { try $0.pins.rows(roomId: 100) }
            #expect(pinned.map(\.id) == [3, 1], "the latest pin first")
            #expect(pinned[0].authorNickname == "민아" && pinned[0].body == "m3" && pinned[0].inTimeline && !pinned[0].isDeleted)
            #expect(try await node.answer { try $0.pins.unpin(messageId: 3) })
            #expect(try await node.answer { try $0.pins.unpin(messageId: 3) } == false)
        }
    }

    @Test("a message gets one link card, awaited only while it has none and exists", arguments: StorageBackend.allCases)
    func previews(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node, team in
            try await node.fixture(team.post(1, in: 100, by: team.mina))
            #expect(try await node.answer { try $0.previews.awaitsPreview(messageId: 1) })
            #expect(try await node.answer { try $0.previews.awaitsPreview(messageId: 9) } == false)
            let card = LinkPreview(messageId: 1, url: "https://example.com/회의", title: "회의록", description: "", siteName: "Example", imageFileId: nil)
            try await node.answer { try $0.previews.insert(card, at: Date()) }
            #expect(try await node.answer { try $0.previews.awaitsPreview(messageId: 1) } == false)
            #expect(try await node.answer { try $0.previews.previews(among: [1, 2]) } == [1: card])
            #expect(try await node.answer { try $0.previews.remove(messageId: 1) })
            #expect(try await node.answer { try $0.previews.remove(messageId: 1) } == false)
            #expect(try await node.answer { try $0.previews.previews(among: [1]) }.isEmpty)
        }
    }
}
