import Foundation
import Testing
@testable import Uploads
@testable import wsx_web

/// The event log, the rows of files, and portable inspection: the same tests on each backend
/// (`ConformanceNode`).
@Suite("Events, files and inspection on both backends", .timeLimit(.minutes(5)))
struct EventAndFileStoresConformanceTests {
    struct Stores {
        let events: any EventStore
        let files: any StoredFileStore
        let inspection: any InspectionStore
        /// Records an event in the transaction, answering its id.
        let publish: (OutgoingEvent) throws -> Int64
    }

    private func withNode(_ backend: StorageBackend, _ body: (ConformanceNode<Stores>) async throws -> Void) async throws {
        try await withConformanceNodes(backend, sqlite: { tx in
            Stores(events: tx.events, files: tx.files, inspection: tx.inspection, publish: { try tx.publish($0) })
        }, postgres: { session in
            Stores(events: PostgresEventStore(session: session), files: PostgresFileStore(session: session),
                   inspection: PostgresInspectionStore(session: session),
                   publish: { try PostgresEventIds.record($0, in: session, at: Date()) })
        }) { (nodes: [ConformanceNode<Stores>]) in
            try await body(nodes[0])
        }
    }

    /// Workspace 10 (Mina's) with #general (100) and #random (101), both of them in #general,
    /// Mina alone in #random; a message in each (1000 in #general, 1001 in #random).
    private func team(_ node: ConformanceNode<Stores>) async throws -> (mina: Int64, bob: Int64) {
        let mina = try await node.person("mina@example.com"), bob = try await node.person("bob@example.com")
        let t = "'2026-11-01 09:00:00.000'"
        for sql in [
            "INSERT INTO workspaces (id, name, name_key, owner_id, created_at, updated_at) VALUES (10, '팀', '팀', \(mina), \(t), \(t))",
            "INSERT INTO workspace_members (workspace_id, user_id, role, joined_at) VALUES (10, \(mina), 'owner', \(t))",
            "INSERT INTO workspace_members (workspace_id, user_id, role, joined_at) VALUES (10, \(bob), 'member', \(t))",
            "INSERT INTO rooms (id, workspace_id, kind, name, name_key, is_default, created_at, updated_at) VALUES (100, 10, 'channel', 'general', 'general', TRUE, \(t), \(t))",
            "INSERT INTO rooms (id, workspace_id, kind, name, name_key, is_default, created_at, updated_at) VALUES (101, 10, 'channel', 'random', 'random', FALSE, \(t), \(t))",
            "INSERT INTO room_members (room_id, user_id, joined_at) VALUES (100, \(mina), \(t))",
            "INSERT INTO room_members (room_id, user_id, joined_at) VALUES (100, \(bob), \(t))",
            "INSERT INTO room_members (room_id, user_id, joined_at) VALUES (101, \(mina), \(t))",
            "INSERT INTO messages (id, room_id, author_id, body, body_html, created_at) VALUES (1000, 100, \(mina), 'hi', '<p>hi</p>', \(t))",
            "INSERT INTO messages (id, room_id, author_id, body, body_html, created_at) VALUES (1001, 101, \(mina), 'notes', '<p>notes</p>', \(t))",
        ] { try await node.fixture(sql) }
        return (mina, bob)
    }

    private static func event(_ type: EventType, to audience: Audience, _ payload: [String: String], message: Int64? = nil) -> OutgoingEvent {
        var event = OutgoingEvent(type, to: audience, payload: payload)
        event.messageId = message
        return event
    }

    /// A payload's fields, whatever the backend's spacing and key order.
    private static func fields(_ payload: String) throws -> [String: String] {
        try JSONDecoder().decode([String: String].self, from: Data(payload.utf8))
    }

    @Test("events get rising ids; replay sends a person's own and their rooms' events after a cursor, within limits",
          arguments: StorageBackend.allCases)
    func replay(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node in
            let (mina, bob) = try await team(node)
            #expect(try await node.answer { try $0.events.latestId() } == 0)
            let first = try await node.answer { try $0.publish(Self.event(.messageCreated, to: .room(100), ["html": "<p>안녕</p>"], message: 1000)) }
            let second = try await node.answer { try $0.publish(Self.event(.messageCreated, to: .room(101), ["html": "<p>notes</p>"], message: 1001)) }
            let third = try await node.answer { try $0.publish(Self.event(.coinsChanged, to: .user(bob), ["balance": "5"])) }
            #expect(first < second && second < third)
            #expect(try await node.answer { try $0.events.latestId() } == third)

            let bobs = try await node.answer { try $0.events.replay(after: 0, through: third, userId: bob, rooms: [100], limit: 10, maxBytes: 1 << 20) }
            #expect(bobs.map(\.id) == [first, third])
            #expect(bobs.map(\.type) == [EventType.messageCreated.rawValue, EventType.coinsChanged.rawValue])
            #expect(try Self.fields(bobs[0].payload) == ["html": "<p>안녕</p>"])
            #expect(bobs[0].payload == Self.event(.messageCreated, to: .room(100), ["html": "<p>안녕</p>"]).payload,
                    "replayed as written: the same bytes as delivered live")
            let minas = try await node.answer { try $0.events.replay(after: first, through: third, userId: mina, rooms: [100, 101], limit: 10, maxBytes: 1 << 20) }
            #expect(minas.map(\.id) == [second])
            let upToFirst = try await node.answer { try $0.events.replay(after: 0, through: first, userId: bob, rooms: [100], limit: 10, maxBytes: 1 << 20) }
            #expect(upToFirst.map(\.id) == [first])
            let one = try await node.answer { try $0.events.replay(after: 0, through: third, userId: mina, rooms: [100, 101], limit: 1, maxBytes: 1 << 20) }
            #expect(one.map(\.id) == [first])
            let small = try await node.answer { try $0.events.replay(after: 0, through: third, userId: mina, rooms: [100, 101], limit: 10, maxBytes: 1) }
            #expect(small.map(\.id) == [first], "always at least one")
            let none = try await node.answer { try $0.events.replay(after: 0, through: third, userId: bob, rooms: [], limit: 10, maxBytes: 1 << 20) }
            #expect(none.map(\.id) == [third], "no rooms: only the person's own")
        }
    }

    @Test("a room's events replay only from when the person joined it", arguments: StorageBackend.allCases)
    func joinFloor(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node in
            let (_, bob) = try await team(node)
            let before = try await node.answer { try $0.publish(Self.event(.messageCreated, to: .room(101), ["html": "before"])) }
            try await node.fixture("INSERT INTO room_members (room_id, user_id, joined_at) VALUES (101, \(bob), '2026-11-01 10:00:00.000')")
            let after = try await node.answer { try $0.publish(Self.event(.messageCreated, to: .room(101), ["html": "after"])) }
            let replayed = try await node.answer { try $0.events.replay(after: 0, through: after, userId: bob, rooms: [101], limit: 10, maxBytes: 1 << 20) }
            #expect(replayed.map(\.id) == [after], "not \(before), published before he joined")
        }
    }

    @Test("an edit rewrites the message's creation and drops earlier edits; a deletion drops what showed it; pruning remembers",
          arguments: StorageBackend.allCases)
    func scrubAndPrune(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node in
            let (mina, _) = try await team(node)
            let created = try await node.answer { try $0.publish(Self.event(.messageCreated, to: .room(100), ["html": "<p>hi</p>", "snippet": "hi"], message: 1000)) }
            _ = try await node.answer { try $0.publish(Self.event(.messageUpdated, to: .room(100), ["html": "<p>hi!</p>"], message: 1000)) }
            let preview = try await node.answer { try $0.publish(Self.event(.messagePreview, to: .room(100), ["url": "https://example.com"], message: 1000)) }
            let other = try await node.answer { try $0.publish(Self.event(.messageCreated, to: .room(101), ["html": "<p>notes</p>"], message: 1001)) }
            try await node.answer { try $0.events.scrubEdited(messageId: 1000, html: "<p>수정됨</p>", snippet: "수정됨") }
            var left = try await node.answer { try $0.events.replay(after: 0, through: other, userId: mina, rooms: [100, 101], limit: 10, maxBytes: 1 << 20) }
            #expect(left.map(\.id) == [created, preview, other])
            #expect(try Self.fields(left[0].payload) == ["html": "<p>수정됨</p>", "snippet": "수정됨"])

            try await node.answer { try $0.events.scrubPlaceholder(messageId: 1000, html: "<p>(deleted)</p>") }
            left = try await node.answer { try $0.events.replay(after: 0, through: other, userId: mina, rooms: [100, 101], limit: 10, maxBytes: 1 << 20) }
            #expect(left.map(\.id) == [created, other])
            #expect(try Self.fields(left[0].payload) == ["html": "<p>(deleted)</p>", "snippet": ""])
            try await node.answer { try $0.events.scrubDeleted(messageId: 1000) }
            try await node.answer { try $0.events.scrubRoomsDeleted([]) }
            left = try await node.answer { try $0.events.replay(after: 0, through: other, userId: mina, rooms: [100, 101], limit: 10, maxBytes: 1 << 20) }
            #expect(left.map(\.id) == [other])
            try await node.answer { try $0.events.scrubRoomsDeleted([101]) }
            #expect(try await node.answer { try $0.events.replay(after: 0, through: other, userId: mina, rooms: [100, 101], limit: 10, maxBytes: 1 << 20) }.isEmpty)

            let kept = try await node.answer { try $0.publish(Self.event(.coinsChanged, to: .user(mina), ["balance": "1"])) }
            #expect(try await node.answer { try $0.events.prune(before: Date(timeIntervalSince1970: 0)) } == 0)
            #expect(try await node.answer { try $0.events.prunedThrough() } == 0)
            #expect(try await node.answer { try $0.events.prune(before: Date().addingTimeInterval(3600)) } == 1)
            #expect(try await node.answer { try $0.events.prunedThrough() } == kept)
            #expect(try await node.answer { try $0.events.latestId() } == kept, "the counter goes on past pruned events")
            let next = try await node.answer { try $0.publish(Self.event(.coinsChanged, to: .user(mina), ["balance": "2"])) }
            #expect(next == kept + 1)
        }
    }

    private static func prepared(_ name: String, sha: String, mime: String = "image/png") -> PreparedFile {
        PreparedFile(received: ReceivedFile(field: "files", name: name, temporaryURL: URL(fileURLWithPath: "/dev/null"), size: 42,
                                            sha256: sha, mimeType: mime, kind: .image),
                     width: 640, height: 480, hasThumbnail: true)
    }

    @Test("files are stored in order, listed per message in attachment order, and downloadable only by those who may see them",
          arguments: StorageBackend.allCases)
    func files(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node in
            let (mina, bob) = try await team(node)
            let now = Date(timeIntervalSince1970: 1_790_000_000.125)
            let stored = try await node.answer {
                try $0.files.insert([Self.prepared("사진.png", sha: "aa"), Self.prepared("plan.png", sha: "bb"), Self.prepared("secret.png", sha: "cc")],
                                    uploader: mina, at: now)
            }
            #expect(stored.map(\.originalName) == ["사진.png", "plan.png", "secret.png"])
            #expect(stored.allSatisfy { $0.id != nil && $0.uploaderId == mina && $0.createdAt == now && $0.width == 640 && $0.hasThumbnail })
            let (photo, plan, secret) = (stored[0].id!, stored[1].id!, stored[2].id!)
            try await node.fixture("INSERT INTO message_files (message_id, file_id, position) VALUES (1000, \(plan), 0)")
            try await node.fixture("INSERT INTO message_files (message_id, file_id, position) VALUES (1000, \(photo), 1)")
            try await node.fixture("INSERT INTO message_files (message_id, file_id, position) VALUES (1001, \(secret), 0)")

            let attached = try await node.answer { try $0.files.attachments(messageIds: [1000, 1001, 5]) }
            #expect(attached[1000]?.map(\.id) == [plan, photo] && attached[1001]?.map(\.id) == [secret] && attached[5] == nil)
            #expect(attached[1000]?.last == stored[0])
            #expect(try await node.answer { try $0.files.attachments(messageIds: []) }.isEmpty)

            #expect(try await node.answer { try $0.files.downloadable(fileId: photo, userId: bob) }?.id == photo, "in a room he is in")
            #expect(try await node.answer { try $0.files.downloadable(fileId: secret, userId: bob) } == nil, "in a room he is not in")
            #expect(try await node.answer { try $0.files.downloadable(fileId: secret, userId: mina) }?.id == secret, "her own upload")
            #expect(try await node.answer { try $0.files.downloadable(fileId: 999_999, userId: mina) } == nil)
            let stranger = try await node.person("stranger@example.com")
            try await node.fixture("UPDATE users SET avatar_file_id = \(secret) WHERE id = \(mina)")
            #expect(try await node.answer { try $0.files.downloadable(fileId: secret, userId: bob) }?.id == secret, "his teammate's face")
            #expect(try await node.answer { try $0.files.downloadable(fileId: secret, userId: stranger) } == nil)
        }
    }

    @Test("the hashes of a message, room or workspace; unreferenced rows go and the hashes still used are answered",
          arguments: StorageBackend.allCases)
    func hashes(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node in
            let (mina, _) = try await team(node)
            let stored = try await node.answer {
                try $0.files.insert([Self.prepared("a.png", sha: "aa"), Self.prepared("b.png", sha: "bb"), Self.prepared("c.png", sha: "cc"),
                                     Self.prepared("d.png", sha: "dd"), Self.prepared("a-again.png", sha: "aa")], uploader: mina, at: Date())
            }
            let ids = stored.map { $0.id! }
            try await node.fixture("INSERT INTO message_files (message_id, file_id, position) VALUES (1000, \(ids[0]), 0)")
            try await node.fixture("INSERT INTO link_previews (message_id, url, title, image_file_id, created_at) VALUES (1001, 'https://example.com', 'Ex', \(ids[1]), '2026-11-01 09:00:00.000')")
            try await node.fixture("UPDATE rooms SET cover_file_id = \(ids[2]) WHERE id = 101")
            #expect(try await node.answer { try $0.files.hashes(in: .message(1000)) } == ["aa"])
            #expect(try await node.answer { try $0.files.hashes(in: .message(1001)) } == ["bb"])
            #expect(try await node.answer { try $0.files.hashes(in: .room(101)) } == ["bb", "cc"])
            #expect(try await node.answer { try $0.files.hashes(in: .workspace(10)) } == ["aa", "bb", "cc"])
            #expect(try await node.answer { try $0.files.deleteUnreferenced() } == ["aa", "bb", "cc"])
            #expect(try await node.answer { try $0.inspection.integer("SELECT COUNT(*) FROM files WHERE sha256 = ?", ["aa"]) } == 1,
                    "the unattached copy of aa went, the attached one stayed")
        }
    }

    @Test("inspection binds numbers, text, dates and booleans, and gives cells as SQLite's store writes them",
          arguments: StorageBackend.allCases)
    func inspection(_ backend: StorageBackend) async throws {
        try await withNode(backend) { node in
            let (mina, bob) = try await team(node)
            let when = Date(timeIntervalSince1970: 1_790_000_000.5)
            try await node.answer { _ = try $0.files.insert([Self.prepared("그림?.png", sha: "ee")], uploader: mina, at: when) }
            let rows = try await node.answer {
                try $0.inspection.rows("SELECT original_name, has_thumbnail, created_at, width, uploader_id FROM files WHERE uploader_id = ? AND original_name <> '?'", [mina])
            }
            #expect(rows == [["그림?.png", "1", Timestamps.database(when), "640", String(mina)]])
            #expect(try await node.answer { try $0.inspection.integer("SELECT COUNT(*) FROM room_members WHERE user_id = ? AND room_id > ?", [bob, 99]) } == 1)
            #expect(try await node.answer { try $0.inspection.integer("SELECT COUNT(*) FROM files WHERE created_at = ? AND has_thumbnail = ?", [when, true]) } == 1)
            #expect(try await node.answer { try $0.inspection.integer("SELECT MAX(width) FROM files WHERE mime = ?", ["none"]) } == 0)
            #expect(try await node.answer { try $0.inspection.rows("SELECT phone FROM users WHERE id = ?", [bob]) } == [["NULL"]])
        }
    }
}
