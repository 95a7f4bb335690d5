import Foundation
import Mail
import PostgresNIO
import Testing
import Views
@testable import wsx_web

/// The mail queue and Web Push subscriptions: the same tests on each backend (`ConformanceNode`).
@Suite("Mail queue and push subscriptions on both backends", .timeLimit(.minutes(5)))
struct MailAndPushStoresConformanceTests {
    typealias Stores = (mail: any MailQueueStore, push: any PushSubscriptionStore, rows: any ConformanceRows)

    private func withNode(_ backend: StorageBackend, _ body: (ConformanceNode<Stores>) async throws -> Void) async throws {
        try await withConformanceNodes(backend, sqlite: { ($0.mail, $0.push, SQLiteConformanceRows(tx: $0)) },
                                       postgres: { (PostgresMailQueueStore(session: $0), PostgresPushSubscriptionStore(session: $0),
                                                    PostgresConformanceRows(session: $0)) }) {
            try await body($0[0])
        }
    }

    private static let start = Date(timeIntervalSince1970: 1_790_000_000.125)

    /// `minutes` after the start.
    private static func at(_ minutes: Double) -> Date {
        start.addingTimeInterval(minutes * 60)
    }

    /// What is due at `time`, as recipient and attempts, the longest due first.
    private static func due(_ node: ConformanceNode<Stores>, at time: Date, limit: Int = 10) async throws -> [String] {
        try await node.answer { try $0.mail.due(at: time, limit: limit).map { "\($0.recipient)#\($0.attempts)" } }
    }

    /// The id of the one mail waiting for `recipient` at `time`.
    private static func waitingMail(_ node: ConformanceNode<Stores>, to recipient: String, at time: Date) async throws -> Int64 {
        let due = try await node.answer { try $0.mail.due(at: time, limit: 100).filter { $0.recipient == recipient }.map(\.id) }
        try #require(due.count == 1)
        return due[0]
    }

    @Test("senders on two nodes claiming at once take each due mail once; a claimed mail is due again only when its lease ends",
          arguments: StorageBackend.allCases)
    func claims(_ backend: StorageBackend) async throws {
        try await withConformanceNodes(backend, count: 2, sqlite: { ($0.mail, $0.push, SQLiteConformanceRows(tx: $0)) },
                                       postgres: { (PostgresMailQueueStore(session: $0), PostgresPushSubscriptionStore(session: $0),
                                                    PostgresConformanceRows(session: $0)) }) { (nodes: [ConformanceNode<Stores>]) in
            try await nodes[0].answer { stores in
                for index in 0..<40 {
                    try stores.mail.enqueue(kind: .passwordReset, recipient: "p\(index)@example.com", workspaceId: nil, message: "m\(index)",
                                            at: Self.at(Double(index) / 100))
                }
            }
            let lease = Self.at(30)
            let claimed = try await withThrowingTaskGroup(of: [Int64].self) { group in
                for round in 0..<8 {
                    group.addTask {
                        try await nodes[round % 2].answer { try $0.mail.claim(at: Self.at(1), limit: 7, until: lease).map(\.id) }
                    }
                }
                return try await group.reduce(into: [Int64]()) { $0 += $1 }
            }
            #expect(claimed.count == 40 && Set(claimed).count == 40, "every mail taken, none twice")
            #expect(try await Self.due(nodes[0], at: Self.at(29)).isEmpty, "taken mail waits for its lease")
            let first = try await nodes[1].answer { try $0.mail.claim(at: Self.at(1), limit: 3, until: lease) }
            #expect(first.isEmpty)
            try await nodes[0].answer { try $0.mail.markSent(id: claimed.min()!, at: Self.at(2)) }
            let again = try await nodes[1].answer { try $0.mail.claim(at: lease, limit: 100, until: Self.at(60)) }
            #expect(again.count == 39 && !again.contains { $0.id == claimed.min()! }, "a lease that ran out gives the rest back; the sent one stays sent")
            #expect(again.map(\.message) == (1..<40).map { "m\($0)" }, "longest due first")
        }
    }

    @Test("a queued mail is due from its time, longest due first, at most the limit; a sent mail is not due again",
          arguments: StorageBackend.allCases)
    func queue(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node in
            #expect(try await node.answer { try $0.mail.nextDue() } == nil)
            #expect(try await node.answer { try $0.mail.queueLength() } == 0)
            try await node.answer { stores in
                try stores.mail.enqueue(kind: .passwordReset, recipient: "a@example.com", workspaceId: nil, message: "first", at: Self.at(0))
                try stores.mail.enqueue(kind: .passwordReset, recipient: "b@example.com", workspaceId: nil, message: "second", at: Self.at(0))
                try stores.mail.enqueue(kind: .emailConfirmation, recipient: "c@example.com", workspaceId: nil, message: "third",
                                        at: Self.at(1))
            }
            #expect(try await Self.due(node, at: Self.start.addingTimeInterval(-0.001)).isEmpty)
            #expect(try await node.answer { try $0.mail.nextDue() } == Self.at(0))
            #expect(try await node.answer { try $0.mail.queueLength() } == 3)
            #expect(try await Self.due(node, at: Self.at(0)) == ["a@example.com#0", "b@example.com#0"], "due at its very time")
            #expect(try await Self.due(node, at: Self.at(1), limit: 2) == ["a@example.com#0", "b@example.com#0"])
            let messages = try await node.answer { try $0.mail.due(at: Self.at(1), limit: 10).map(\.message) }
            #expect(messages == ["first", "second", "third"])

            // A failed try is tried again later, counted.
            let a = try await Self.waitingMail(node, to: "a@example.com", at: Self.at(1))
            try await node.answer { try $0.mail.markFailed(id: a, error: "451 later", reason: .closed, next: Self.at(5), at: Self.at(1)) }
            #expect(try await Self.due(node, at: Self.at(1)) == ["b@example.com#0", "c@example.com#0"])
            #expect(try await Self.due(node, at: Self.at(5)) == ["b@example.com#0", "c@example.com#0", "a@example.com#1"])
            #expect(try await node.answer { try $0.mail.failedCount() } == 0)

            // Postponed mail waits without a try counted; an empty list moves nothing.
            let b = try await Self.waitingMail(node, to: "b@example.com", at: Self.at(1))
            let c = try await Self.waitingMail(node, to: "c@example.com", at: Self.at(1))
            try await node.answer { try $0.mail.postpone(ids: [b, c], until: Self.at(10)) }
            try await node.answer { try $0.mail.postpone(ids: [], until: Self.at(20)) }
            #expect(try await Self.due(node, at: Self.at(5)) == ["a@example.com#1"])
            #expect(try await node.answer { try $0.mail.nextDue() } == Self.at(5))

            // Sent, it leaves the queue for good: postponing it brings nothing back.
            try await node.answer { try $0.mail.markSent(id: a, at: Self.at(5)) }
            try await node.answer { try $0.mail.postpone(ids: [a], until: Self.at(0)) }
            #expect(try await Self.due(node, at: Self.at(10)) == ["b@example.com#0", "c@example.com#0"])
            #expect(try await node.answer { try $0.mail.queueLength() } == 2)
            #expect(try await node.answer { try $0.mail.nextDue() } == Self.at(10))
        }
    }

    @Test("mail given up on is listed newest first until a later one of its kind to its address is delivered",
          arguments: StorageBackend.allCases)
    func failures(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node in
            let owner = try await node.person("owner@example.com")
            let (acme, beta) = try await node.answer { stores in
                (try stores.rows.workspace("Acme", ownerId: owner), try stores.rows.workspace("Beta", ownerId: owner))
            }
            try await node.answer { stores in
                try stores.mail.enqueue(kind: .invitation, recipient: "x@example.com", workspaceId: acme, message: "", at: Self.at(0))
                try stores.mail.enqueue(kind: .invitation, recipient: "y@example.com", workspaceId: acme, message: "", at: Self.at(0))
                try stores.mail.enqueue(kind: .passwordReset, recipient: "z@example.com", workspaceId: nil, message: "", at: Self.at(0))
            }
            let ids = try await node.answer { try $0.mail.due(at: Self.at(0), limit: 10).map(\.id) }
            try #require(ids.count == 3)
            try await node.answer { try $0.mail.enqueue(kind: .invitation, recipient: "x@example.com", workspaceId: beta, message: "",
                                                        at: Self.at(0)) }
            let xBeta = try #require(try await node.answer { try $0.mail.due(at: Self.at(0), limit: 10).last?.id })
            let givenUp: [(Int64, SMTPFailureReason)] = [(ids[0], .unreachable), (ids[1], .refused), (ids[2], .timedOut), (xBeta, .tls)]
            for (minute, (id, reason)) in givenUp.enumerated() {
                try await node.answer { try $0.mail.markFailed(id: id, error: "550", reason: reason, next: nil, at: Self.at(Double(minute + 1))) }
            }
            #expect(try await node.answer { try $0.mail.failedCount() } == 4)
            #expect(try await node.answer { try $0.mail.queueLength() } == 0)
            #expect(try await node.answer { try $0.mail.nextDue() } == nil)
            #expect(try await Self.due(node, at: Self.at(60)).isEmpty, "given up on: never due again")

            let acmeFailures = try await node.answer { try $0.mail.failures(workspaceId: acme) }
            #expect(acmeFailures.map(\.recipient) == ["y@example.com", "x@example.com"])
            #expect(acmeFailures.map(\.reason) == [.refused, .unreachable] && acmeFailures.map(\.kind) == [.invitation, .invitation])
            #expect(acmeFailures.map(\.failedAt) == [Self.at(2), Self.at(1)])
            let newest = try await node.answer { try $0.mail.failures(limit: 3) }
            #expect(newest.map(\.recipient) == ["x@example.com", "z@example.com", "y@example.com"])
            #expect(newest.map(\.kind) == [.invitation, .passwordReset, .invitation] && newest.first?.reason == .tls)

            // A later invitation to x in Acme delivered clears x's failure there, not in Beta.
            try await node.answer { try $0.mail.enqueue(kind: .invitation, recipient: "x@example.com", workspaceId: acme, message: "again",
                                                        at: Self.at(5)) }
            let again = try await Self.waitingMail(node, to: "x@example.com", at: Self.at(5))
            try await node.answer { try $0.mail.markSent(id: again, at: Self.at(6)) }
            #expect(try await node.answer { try $0.mail.failures(workspaceId: acme).map(\.recipient) } == ["y@example.com"])
            #expect(try await node.answer { try $0.mail.failures(workspaceId: beta).map(\.recipient) } == ["x@example.com"])
            #expect(try await node.answer { try $0.mail.failedCount() } == 3)

            // Mail of another kind to y clears nothing; a password reset to z delivered clears z's.
            for (kind, recipient) in [(MailOutbox.Kind.passwordReset, "y@example.com"), (.passwordReset, "z@example.com")] {
                try await node.answer { try $0.mail.enqueue(kind: kind, recipient: recipient, workspaceId: nil, message: "", at: Self.at(7)) }
                let id = try await Self.waitingMail(node, to: recipient, at: Self.at(7))
                try await node.answer { try $0.mail.markSent(id: id, at: Self.at(8)) }
            }
            #expect(try await node.answer { try $0.mail.failures(limit: 10).map(\.recipient) } == ["x@example.com", "y@example.com"])
            #expect(try await node.answer { try $0.mail.failures(workspaceId: 999_999).isEmpty })
        }
    }

    /// The people and messages of the digest's test: ids in the order they were made.
    private struct DigestScene: Sendable {
        let reader, quiet, workspace, channel, dm: Int64
        /// The messages the reader's digest tells of, in id order.
        let expected: [Int64]
        let mention, reply, replyRoot, byRemoved, newest: Int64
    }

    @Test("the digest reads unread mentions and conversation messages in its window, newer than the last digest, once",
          arguments: StorageBackend.allCases)
    func digest(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node in
            let scene = try await node.answer { stores in try Self.digestScene(stores.rows) }
            let rows = try await node.answer { try $0.mail.digestUnread(postedFrom: Self.at(0), until: Self.at(60)) }
            #expect(rows.map(\.messageId) == scene.expected)
            #expect(Set(rows.map(\.userId)) == [scene.reader], "not those off the digest, nor those without a password")
            let mention = try #require(rows.first)
            #expect(mention.email == "reader@example.com" && mention.nickname == "Rita" && mention.lang == "ko")
            #expect(mention.body == "hello @Rita" && mention.threadRootId == nil && mention.author == "Abe")
            #expect(mention.roomId == scene.channel && mention.kind == "channel" && mention.name == "general" && mention.dmKey == nil)
            #expect(mention.workspaceId == scene.workspace)
            let reply = try #require(rows.first { $0.messageId == scene.reply })
            #expect(reply.threadRootId == scene.replyRoot && reply.roomId == scene.dm && reply.kind == "dm")
            #expect(reply.dmKey == "\(scene.reader):\(scene.quiet)" && reply.name == "")
            #expect(rows.first { $0.messageId == scene.byRemoved }?.author == "", "the author's account is gone")

            #expect(try await node.answer { try $0.mail.language(emailKey: "reader@example.com") } == "ko")
            #expect(try await node.answer { try $0.mail.language(emailKey: "quiet@example.com") } == nil)
            #expect(try await node.answer { try $0.mail.language(emailKey: "nobody@example.com") } == nil)

            // Told of, a message is not told of again; the marker moves only forward, once.
            #expect(try await node.answer { try $0.mail.advanceDigest(userId: scene.reader, through: scene.byRemoved) })
            #expect(try await node.answer { try $0.mail.advanceDigest(userId: scene.reader, through: scene.byRemoved) } == false)
            #expect(try await node.answer { try $0.mail.advanceDigest(userId: scene.reader, through: scene.mention) } == false)
            let left = try await node.answer { try $0.mail.digestUnread(postedFrom: Self.at(0), until: Self.at(60)).map(\.messageId) }
            #expect(left == [scene.newest])
            #expect(try await node.answer { try $0.mail.advanceDigest(userId: scene.quiet, through: scene.newest) } == false,
                    "their digest is off")
            #expect(try await node.answer { try $0.mail.advanceDigest(userId: scene.reader, through: scene.newest) })
            #expect(try await node.answer { try $0.mail.digestUnread(postedFrom: Self.at(0), until: Self.at(60)).isEmpty })
        }
    }

    /// A reader (digest on) and the people around them, with messages in and out of the digest's
    /// window from minute 0 to minute 60.
    private static func digestScene(_ rows: any ConformanceRows) throws -> DigestScene {
        let reader = try rows.person("reader@example.com", nickname: "Rita", lang: "ko")
        let quiet = try rows.person("quiet@example.com", nickname: "Quinn")
        let author = try rows.person("author@example.com", nickname: "Abe")
        let invited = try rows.person("invited@example.com", nickname: "Ivy", passwordHash: "")
        let removed = try rows.person("removed@example.com", nickname: "Rex")
        try rows.turnOffDigest(userId: quiet)
        let workspace = try rows.workspace("Acme", ownerId: author)
        let channel = try rows.room(workspaceId: workspace, kind: .channel, name: "general")
        let dm = try rows.room(workspaceId: workspace, kind: .dm, name: "", dmKey: "\(reader):\(quiet)")
        let group = try rows.room(workspaceId: workspace, kind: .group, name: "", dmKey: "\(reader),\(quiet),\(invited)")
        let archived = try rows.room(workspaceId: workspace, kind: .channel, name: "old")
        for person in [reader, quiet, invited] {
            try rows.join(roomId: channel, userId: person)
            try rows.join(roomId: dm, userId: person)
            try rows.join(roomId: archived, userId: person)
        }

        let mention = try rows.post(roomId: channel, authorId: author, body: "hello @Rita", at: at(0))
        try rows.mention(userId: reader, messageId: mention)
        _ = try rows.post(roomId: channel, authorId: author, body: "no mention", at: at(1))
        let replyRoot = try rows.post(roomId: dm, authorId: quiet, body: "at the window's end", at: at(60))
        let reply = try rows.post(roomId: dm, authorId: author, body: "a reply", threadRootId: replyRoot, at: at(2))
        _ = try rows.post(roomId: dm, authorId: reader, body: "their own", at: at(2))
        let deleted = try rows.post(roomId: dm, authorId: author, body: "deleted", at: at(2))
        try rows.deleteLeavingPlaceholder(messageId: deleted)
        _ = try rows.post(roomId: dm, authorId: author, body: "too early", at: at(0).addingTimeInterval(-0.001))
        _ = try rows.post(roomId: dm, authorId: author, body: "too late", at: at(60).addingTimeInterval(0.001))
        let byRemoved = try rows.post(roomId: dm, authorId: removed, body: "from an account now gone", at: at(3))
        try rows.remove(person: removed)
        let read = try rows.post(roomId: group, authorId: author, body: "read already", at: at(4))
        let newest = try rows.post(roomId: group, authorId: author, body: "unread", at: at(4))
        try rows.join(roomId: group, userId: reader, lastRead: read)
        try rows.join(roomId: group, userId: quiet)
        try rows.join(roomId: group, userId: invited)
        let inArchive = try rows.post(roomId: archived, authorId: author, body: "@Rita in an archived channel", at: at(5))
        try rows.mention(userId: reader, messageId: inArchive)
        try rows.archive(roomId: archived)
        return DigestScene(reader: reader, quiet: quiet, workspace: workspace, channel: channel, dm: dm,
                           expected: [mention, replyRoot, reply, byRemoved, newest], mention: mention, reply: reply,
                           replyRoot: replyRoot, byRemoved: byRemoved, newest: newest)
    }

    private static func subscription(_ endpoint: String, key: UInt8) -> PushStore.Subscription {
        PushStore.Subscription(endpoint: endpoint, p256dh: Data([key, 0, 0xFF]), auth: Data([key, 1]))
    }

    @Test("a push subscription is kept per endpoint, moves with its endpoint, and only a person's newest stay",
          arguments: StorageBackend.allCases)
    func subscriptions(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node in
            let (ann, ben) = (try await node.person("ann@example.com"), try await node.person("ben@example.com"))
            let room = try await node.answer { stores in
                let room = try stores.rows.room(workspaceId: try stores.rows.workspace("Acme", ownerId: ann), kind: .channel, name: "general")
                for person in [ann, ben] { try stores.rows.join(roomId: room, userId: person) }
                return room
            }
            try await node.answer { stores in
                let session = try stores.rows.session(userId: ann, token: "ann")
                for endpoint in ["https://push.example/1", "https://push.example/2", "https://push.example/3"] {
                    try stores.push.subscribe(Self.subscription(endpoint, key: 1), userId: ann, sessionId: session, keeping: 2, at: Self.at(0))
                }
            }
            #expect(try await node.answer { try $0.push.count(userId: ann) } == 2)
            try await node.answer { try $0.push.unsubscribe(endpoint: "https://push.example/1", userId: ann) }
            #expect(try await node.answer { try $0.push.count(userId: ann) } == 2, "the oldest was gone already")

            // The same endpoint again, for Ben from his session: it is his now, with its new keys.
            let moved = Self.subscription("https://push.example/3", key: 2)
            try await node.answer { stores in
                try stores.push.subscribe(moved, userId: ben, sessionId: try stores.rows.session(userId: ben, token: "ben"), keeping: 20,
                                          at: Self.at(1))
            }
            #expect(try await node.answer { try $0.push.count(userId: ann) } == 1)
            #expect(try await node.answer { try $0.push.count(userId: ben) } == 1)
            try await node.answer { try $0.push.unsubscribe(endpoint: "https://push.example/3", userId: ann) }
            #expect(try await node.answer { try $0.push.count(userId: ben) } == 1, "Ann cannot remove Ben's subscription")
            let bens = try await node.answer { try $0.push.recipients(roomId: room, authorId: ann).map(\.subscriptionId) }
            try #require(bens.count == 1)
            try await node.answer { try $0.push.enqueue("hello", to: bens, at: Self.at(1)) }
            #expect(try await node.answer { try $0.push.due(at: Self.at(1), limit: 10).map(\.subscription) } == [moved])

            try await node.answer { try $0.push.unsubscribe(endpoint: "https://push.example/3", userId: ben) }
            #expect(try await node.answer { try $0.push.count(userId: ben) } == 0)
            #expect(try await node.answer { try $0.push.due(at: Self.at(1), limit: 10).isEmpty }, "its pushes went with it")
        }
    }

    @Test("pushes go to the room's active members but the author, each at their level for the room",
          arguments: StorageBackend.allCases)
    func recipients(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node in
            let people = try await node.answer { stores in
                let rows = stores.rows
                let (author, ann, ben, cat, dan) = (try rows.person("author@example.com", nickname: "Abe"),
                                                    try rows.person("ann@example.com", nickname: "Ann"),
                                                    try rows.person("ben@example.com", nickname: "Ben"),
                                                    try rows.person("cat@example.com", nickname: "Cat"),
                                                    try rows.person("dan@example.com", nickname: "Dan"))
                let room = try rows.room(workspaceId: try rows.workspace("Acme", ownerId: author), kind: .channel, name: "general")
                for person in [author, ann, ben, cat] { try rows.join(roomId: room, userId: person) }
                for (index, person) in [author, ann, ann, ben, cat, dan].enumerated() {
                    try stores.push.subscribe(Self.subscription("https://push.example/\(index)", key: UInt8(index)), userId: person,
                                              sessionId: try rows.session(userId: person, token: "t\(index)"), keeping: 20, at: Self.at(0))
                }
                try rows.setLevel(.all, roomId: room, userId: ann)
                try rows.setDefaultLevel(.mute, userId: ben)
                try rows.setDefaultLevel(.all, userId: author)
                try rows.setLevel(.mute, roomId: room, userId: author)
                try rows.deactivate(userId: cat)
                return (room: room, author: author, ann: ann, ben: ben)
            }
            let withoutAuthor = try await node.answer { stores in
                try stores.push.recipients(roomId: people.room, authorId: people.author)
                    .sorted { $0.subscriptionId < $1.subscriptionId }.map { "\($0.userId):\($0.level.rawValue)" }
            }
            #expect(withoutAuthor == ["\(people.ann):all", "\(people.ann):all", "\(people.ben):mute"])
            let everyone = try await node.answer { stores in
                try stores.push.recipients(roomId: people.room, authorId: nil)
                    .sorted { $0.subscriptionId < $1.subscriptionId }.map { "\($0.userId):\($0.level.rawValue)" }
            }
            #expect(everyone == ["\(people.author):mute", "\(people.ann):all", "\(people.ann):all", "\(people.ben):mute"])
            #expect(try await node.answer { try $0.push.recipients(roomId: 999_999, authorId: nil).isEmpty })
        }
    }

    @Test("a queued push is due at its time, longest due first; retried later, finished, or dropped with its subscription",
          arguments: StorageBackend.allCases)
    func pushQueue(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node in
            let ann = try await node.person("ann@example.com")
            let ids = try await node.answer { stores in
                let room = try stores.rows.room(workspaceId: try stores.rows.workspace("Acme", ownerId: ann), kind: .channel, name: "general")
                try stores.rows.join(roomId: room, userId: ann)
                let session = try stores.rows.session(userId: ann, token: "ann")
                for index in 1...2 {
                    try stores.push.subscribe(Self.subscription("https://push.example/\(index)", key: UInt8(index)), userId: ann,
                                              sessionId: session, keeping: 20, at: Self.at(0))
                }
                return try stores.push.recipients(roomId: room, authorId: nil).map(\.subscriptionId).sorted()
            }
            try #require(ids.count == 2)
            let (first, second) = (ids[0], ids[1])
            #expect(try await node.answer { try $0.push.nextDue() } == nil)
            try await node.answer { stores in
                try stores.push.enqueue("p1", to: [second, first], at: Self.at(0))
                try stores.push.enqueue("p2", to: [first], at: Self.at(1))
                try stores.push.enqueue("nobody", to: [], at: Self.at(0))
            }
            @Sendable func due(at time: Date, limit: Int = 10) async throws -> [PushStore.Due] {
                try await node.answer { try $0.push.due(at: time, limit: limit) }
            }
            func listed(_ pushes: [PushStore.Due]) -> [String] {
                pushes.map { "\($0.payload)>\($0.subscriptionId == first ? 1 : 2)#\($0.attempts)" }
            }
            #expect(try await node.answer { try $0.push.nextDue() } == Self.at(0))
            #expect(try await due(at: Self.at(0).addingTimeInterval(-0.001)).isEmpty)
            let all = try await due(at: Self.at(1))
            #expect(listed(all) == ["p1>2#0", "p1>1#0", "p2>1#0"])
            #expect(all.first?.subscription == Self.subscription("https://push.example/2", key: 2))
            #expect(listed(try await due(at: Self.at(1), limit: 1)) == ["p1>2#0"])

            try await node.answer { try $0.push.retry(id: all[0].id, at: Self.at(2)) }
            #expect(listed(try await due(at: Self.at(1))) == ["p1>1#0", "p2>1#0"])
            #expect(listed(try await due(at: Self.at(2))) == ["p1>1#0", "p2>1#0", "p1>2#1"])
            try await node.answer { try $0.push.finish(id: all[1].id) }
            #expect(try await node.answer { try $0.push.nextDue() } == Self.at(1))
            try await node.answer { try $0.push.drop(subscriptionId: first) }
            #expect(listed(try await due(at: Self.at(2))) == ["p1>2#1"])
            #expect(try await node.answer { try $0.push.count(userId: ann) } == 1)
            try await node.answer { try $0.push.finish(id: all[0].id) }
            #expect(try await node.answer { try $0.push.nextDue() } == nil)
        }
    }

    @Test("push senders on two nodes claiming at once take each due push once; a claimed push is due again only when its lease ends",
          arguments: StorageBackend.allCases)
    func pushClaims(_ backend: StorageBackend) async throws {
        try await withConformanceNodes(backend, count: 2, sqlite: { ($0.mail, $0.push, SQLiteConformanceRows(tx: $0)) },
                                       postgres: { (PostgresMailQueueStore(session: $0), PostgresPushSubscriptionStore(session: $0),
                                                    PostgresConformanceRows(session: $0)) }) { (nodes: [ConformanceNode<Stores>]) in
            let ann = try await nodes[0].answer { try $0.rows.person(email: "ann@example.com", nickname: "Ann", passwordHash: "x", lang: nil) }
            try await nodes[0].answer { stores in
                let room = try stores.rows.room(workspaceId: try stores.rows.workspace("Acme", ownerId: ann), kind: .channel, name: "general")
                try stores.rows.join(roomId: room, userId: ann)
                let session = try stores.rows.session(userId: ann, token: "ann")
                try stores.push.subscribe(Self.subscription("https://push.example/1", key: 1), userId: ann, sessionId: session,
                                          keeping: 20, at: Self.at(0))
                let subscription = try stores.push.recipients(roomId: room, authorId: nil).map(\.subscriptionId)
                for index in 0..<40 {
                    try stores.push.enqueue("p\(index)", to: subscription, at: Self.at(Double(index) / 100))
                }
            }
            let lease = Self.at(30)
            let claimed = try await withThrowingTaskGroup(of: [Int64].self) { group in
                for round in 0..<8 {
                    group.addTask {
                        try await nodes[round % 2].answer { try $0.push.claim(at: Self.at(1), limit: 7, until: lease).map(\.id) }
                    }
                }
                return try await group.reduce(into: [Int64]()) { $0 += $1 }
            }
            #expect(claimed.count == 40 && Set(claimed).count == 40, "every push taken, none twice")
            #expect(try await nodes[0].answer { try $0.push.due(at: Self.at(29), limit: 100) }.isEmpty, "taken pushes wait for their lease")
            #expect(try await nodes[1].answer { try $0.push.nextDue() } == lease)
            try await nodes[0].answer { try $0.push.finish(id: claimed.min()!) }
            let again = try await nodes[1].answer { try $0.push.claim(at: lease, limit: 100, until: Self.at(60)) }
            #expect(again.count == 39 && !again.contains { $0.id == claimed.min()! }, "a lease that ran out gives the rest back; the finished one is gone")
            #expect(again.map(\.payload) == (1..<40).map { "p\($0)" }, "longest due first")
            #expect(again.allSatisfy { $0.subscription == Self.subscription("https://push.example/1", key: 1) && $0.attempts == 0 },
                    "with what sending needs, and a lease counts no try")
        }
    }
}

/// Rows the stores under test point at (accounts, workspaces, rooms, messages, sessions), made on
/// each backend: through the transaction's other stores on SQLite, by small inserts on PostgreSQL,
/// whose stores for them do not exist yet. The conformance suites of the mail and push queues,
/// the logs and the invitations share it.
protocol ConformanceRows {
    /// Makes an account (its address is its key); answers its id.
    func person(email: String, nickname: String, passwordHash: String, lang: String?) throws -> Int64
    /// Deletes the account: what points at it is emptied or goes with it.
    func remove(person id: Int64) throws
    func turnOffDigest(userId: Int64) throws
    func deactivate(userId: Int64) throws
    func setDefaultLevel(_ level: NotifyLevel, userId: Int64) throws
    /// Makes a workspace, without members; answers its id.
    func workspace(_ name: String, ownerId: Int64) throws -> Int64
    /// Makes the person a member of the workspace.
    func join(workspaceId: Int64, userId: Int64) throws
    /// Makes a room; answers its id.
    func room(workspaceId: Int64, kind: Room.Kind, name: String, dmKey: String?) throws -> Int64
    /// Makes the person a member of the room, having read up to `lastRead`.
    func join(roomId: Int64, userId: Int64, lastRead: Int64) throws
    func setLevel(_ level: NotifyLevel, roomId: Int64, userId: Int64) throws
    func archive(roomId: Int64) throws
    /// Posts a message (a reply in `threadRootId`'s thread, if given); answers its id.
    func post(roomId: Int64, authorId: Int64, body: String, threadRootId: Int64?, at time: Date) throws -> Int64
    func mention(userId: Int64, messageId: Int64) throws
    /// Deletes the message as a thread root is deleted: a placeholder without text or mentions.
    func deleteLeavingPlaceholder(messageId: Int64) throws
    /// Makes a sign-in session of the person; answers its id.
    func session(userId: Int64, token: String) throws -> Int64
}

extension ConformanceRows {
    /// When the rows are made (their own dates matter to none of the tests).
    static var madeAt: Date { Date(timeIntervalSince1970: 1_780_000_000) }

    func person(_ email: String, nickname: String = "Person", passwordHash: String = "x", lang: String? = nil) throws -> Int64 {
        try person(email: email, nickname: nickname, passwordHash: passwordHash, lang: lang)
    }

    func room(workspaceId: Int64, kind: Room.Kind, name: String) throws -> Int64 {
        try room(workspaceId: workspaceId, kind: kind, name: name, dmKey: nil)
    }

    func join(roomId: Int64, userId: Int64) throws {
        try join(roomId: roomId, userId: userId, lastRead: 0)
    }

    func post(roomId: Int64, authorId: Int64, body: String, at time: Date) throws -> Int64 {
        try post(roomId: roomId, authorId: authorId, body: body, threadRootId: nil, at: time)
    }
}

/// `ConformanceRows` on SQLite: the transaction's own stores.
struct SQLiteConformanceRows: ConformanceRows {
    let tx: any StoreTransaction

    func person(email: String, nickname: String, passwordHash: String, lang: String?) throws -> Int64 {
        try #require(try tx.accounts.insert(User(email: email, emailKey: email, nickname: nickname, phone: nil, passwordHash: passwordHash,
                                                 lang: lang, createdAt: Self.madeAt, updatedAt: Self.madeAt)).id)
    }

    func remove(person id: Int64) throws { try tx.accounts.delete(userId: id) }
    func turnOffDigest(userId: Int64) throws { try tx.accounts.setMailDigest(false, userId: userId) }
    func deactivate(userId: Int64) throws { try tx.accounts.deactivate(userId: userId, at: Self.madeAt) }
    func setDefaultLevel(_ level: NotifyLevel, userId: Int64) throws { try tx.notifySettings.setDefault(level, userId: userId) }

    func workspace(_ name: String, ownerId: Int64) throws -> Int64 {
        try #require(try tx.workspaces.insert(Workspace(id: nil, name: name, nameKey: name.lowercased(), description: "", ownerId: ownerId,
                                                        coverFileId: nil, createdAt: Self.madeAt, updatedAt: Self.madeAt)).id)
    }

    func join(workspaceId: Int64, userId: Int64) throws {
        try tx.workspaces.addMember(workspaceId: workspaceId, userId: userId, role: .member, joinedAt: Self.madeAt)
    }

    func room(workspaceId: Int64, kind: Room.Kind, name: String, dmKey: String?) throws -> Int64 {
        try #require(try tx.rooms.insert(Room(id: nil, workspaceId: workspaceId, kind: kind, name: name, nameKey: name.lowercased(),
                                              description: "", ownerId: nil, isDefault: false, dmKey: dmKey, coverFileId: nil,
                                              createdAt: Self.madeAt, updatedAt: Self.madeAt)).id)
    }

    func join(roomId: Int64, userId: Int64, lastRead: Int64) throws {
        try tx.rooms.addMember(roomId: roomId, userId: userId, joinedAt: Self.madeAt, lastReadMessageId: lastRead)
    }

    func setLevel(_ level: NotifyLevel, roomId: Int64, userId: Int64) throws {
        try #require(try tx.notifySettings.setLevel(level, roomId: roomId, userId: userId))
    }

    func archive(roomId: Int64) throws {
        var room = try #require(try tx.rooms.room(id: roomId))
        room.archivedAt = Self.madeAt
        try tx.rooms.update(room)
    }

    func post(roomId: Int64, authorId: Int64, body: String, threadRootId: Int64?, at time: Date) throws -> Int64 {
        try tx.messages.insert(roomId: roomId, authorId: authorId, text: body, html: body, at: time, clientId: nil,
                               thread: threadRootId.map { ThreadPlacement(rootId: $0, alsoInRoom: true) })
    }

    func mention(userId: Int64, messageId: Int64) throws { try tx.messages.addMentions(messageId: messageId, userIds: [userId]) }
    func deleteLeavingPlaceholder(messageId: Int64) throws { try tx.messages.leavePlaceholder(id: messageId, at: Self.madeAt) }

    func session(userId: Int64, token: String) throws -> Int64 {
        try #require(try tx.sessions.insert(Session(id: nil, tokenHash: token, userId: userId, csrfToken: token, userAgent: nil,
                                                    createdAt: Self.madeAt, refreshedAt: Self.madeAt,
                                                    expiresAt: Self.madeAt.addingTimeInterval(3600))).id)
    }
}

/// `ConformanceRows` on PostgreSQL: one small insert or update each.
struct PostgresConformanceRows: ConformanceRows {
    let session: PostgresSession

    /// The id a statement ending `RETURNING id` answers.
    private func id(_ query: PostgresQuery) throws -> Int64 {
        try #require(try session.run(query).first).decode(Int64.self)
    }

    func person(email: String, nickname: String, passwordHash: String, lang: String?) throws -> Int64 {
        try id("""
            INSERT INTO users (email, email_key, nickname, password_hash, lang, created_at, updated_at)
            VALUES (\(email), \(email), \(nickname), \(passwordHash), \(lang), \(Self.madeAt), \(Self.madeAt)) RETURNING id
            """)
    }

    func remove(person id: Int64) throws { try session.run("DELETE FROM users WHERE id = \(id)") }
    func turnOffDigest(userId: Int64) throws { try session.run("UPDATE users SET mail_digest = FALSE WHERE id = \(userId)") }

    func deactivate(userId: Int64) throws {
        try session.run("UPDATE users SET deactivated_at = \(Self.madeAt), updated_at = \(Self.madeAt) WHERE id = \(userId)")
    }

    func setDefaultLevel(_ level: NotifyLevel, userId: Int64) throws {
        try session.run("UPDATE users SET notify_default = \(level.rawValue) WHERE id = \(userId)")
    }

    func workspace(_ name: String, ownerId: Int64) throws -> Int64 {
        try id("""
            INSERT INTO workspaces (name, name_key, owner_id, created_at, updated_at)
            VALUES (\(name), \(name.lowercased()), \(ownerId), \(Self.madeAt), \(Self.madeAt)) RETURNING id
            """)
    }

    func join(workspaceId: Int64, userId: Int64) throws {
        try session.run("""
            INSERT INTO workspace_members (workspace_id, user_id, role, joined_at) VALUES (\(workspaceId), \(userId), 'member', \(Self.madeAt))
            """)
    }

    func room(workspaceId: Int64, kind: Room.Kind, name: String, dmKey: String?) throws -> Int64 {
        try id("""
            INSERT INTO rooms (workspace_id, kind, name, name_key, dm_key, created_at, updated_at)
            VALUES (\(workspaceId), \(kind.rawValue), \(name), \(name.lowercased()), \(dmKey), \(Self.madeAt), \(Self.madeAt)) RETURNING id
            """)
    }

    func join(roomId: Int64, userId: Int64, lastRead: Int64) throws {
        try session.run("""
            INSERT INTO room_members (room_id, user_id, joined_at, last_read_message_id) VALUES (\(roomId), \(userId), \(Self.madeAt), \(lastRead))
            """)
    }

    func setLevel(_ level: NotifyLevel, roomId: Int64, userId: Int64) throws {
        try session.run("UPDATE room_members SET notify_level = \(level.rawValue) WHERE room_id = \(roomId) AND user_id = \(userId)")
    }

    func archive(roomId: Int64) throws { try session.run("UPDATE rooms SET archived_at = \(Self.madeAt) WHERE id = \(roomId)") }

    func post(roomId: Int64, authorId: Int64, body: String, threadRootId: Int64?, at time: Date) throws -> Int64 {
        try id("""
            INSERT INTO messages (room_id, author_id, body, body_html, created_at, thread_root_id)
            VALUES (\(roomId), \(authorId), \(body), \(body), \(time), \(threadRootId)) RETURNING id
            """)
    }

    func mention(userId: Int64, messageId: Int64) throws {
        try session.run("INSERT INTO mentions (user_id, message_id) VALUES (\(userId), \(messageId))")
    }

    func deleteLeavingPlaceholder(messageId: Int64) throws {
        try session.run("""
            UPDATE messages SET body = '', body_html = '', deleted_at = \(Self.madeAt), edited_at = \(Self.madeAt) WHERE id = \(messageId)
            """)
        try session.run("DELETE FROM mentions WHERE message_id = \(messageId)")
    }

    func session(userId: Int64, token: String) throws -> Int64 {
        try #require(try PostgresSessionRecordStore(session: session).insert(Session(
            id: nil, tokenHash: token, userId: userId, csrfToken: token, userAgent: nil, createdAt: Self.madeAt,
            refreshedAt: Self.madeAt, expiresAt: Self.madeAt.addingTimeInterval(3600))).id)
    }
}
