import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOFoundationEssentialsCompat
import Logging
import PostgresNIO
import Testing
@testable import wsx_web

/// The whole server on PostgreSQL (`serve --database`): the same requests as on SQLite, answered
/// the same way.
@Suite("The server on PostgreSQL", .timeLimit(.minutes(5)))
struct PostgresAppTests {
    /// A test app on a new PostgreSQL database of the test cluster.
    static func app() async throws -> TestApp {
        var app = TestApp()
        app.postgresAddress = try await PostgresTestCluster.shared().database()
        return app
    }

    @Test("sign up, make a workspace and a channel, join it, post, and read the page")
    func channelFlow() async throws {
        try await Self.app().run { app in
            let (owner, member, wid) = try await ChannelTests.team(app)
            let cid = try await owner.createChannel(in: wid, " 공지채널 ", description: "Announcements")
            let directory = try await member.get("/w/\(wid)/channels")
            #expect(directory.text.contains(#"data-room-name="\#(cid)">공지채널</a>"#))
            try await member.post("/w/\(wid)/c/\(cid)/join")
            _ = try await MessagingTests.say(owner, "/w/\(wid)/c/\(cid)", "첫 소식 @Member")
            let page = try await member.get("/w/\(wid)/c/\(cid)")
            #expect(page.status == .ok)
            #expect(page.text.contains("첫 소식"))
            #expect(page.text.contains("2 members"))
            let search = try await member.get("/w/\(wid)/search?q=소식")
            #expect(search.text.contains("첫 <mark>소식</mark>"))
        }
    }

    @Test("serve --database: the binary migrates an empty database, serves, and /healthz says 503 once the database is gone")
    func serveBinary() async throws {
        let cluster = try await PostgresTestCluster.shared()
        let address = try await cluster.database()
        let folder = try makeEmptyFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = "postgres://\(address.user)@\(address.host):\(address.port)/\(address.database)"
        let (server, base) = try WSXBinary(path: WSXBinary.builtPath).serve(["--data-dir", "data", "--database", url], in: folder)
        defer { server.terminate() }
        #expect(try await fetch(base.appendingPathComponent("healthz")).status == 200)
        #expect(try await fetch(base.appendingPathComponent("login")).status == 200)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("data/wsx.sqlite").path),
                "no SQLite file beside a PostgreSQL database")

        try await PostgresConnector(address: cluster.address(database: "postgres"), logger: Logger(label: "test.postgres"))
            .withConnection { connection in
                _ = try await connection.query(PostgresQuery(unsafeSQL: "ALTER DATABASE \(address.database) ALLOW_CONNECTIONS false"),
                                               logger: Logger(label: "test.postgres")).collect()
                _ = try await connection.query(PostgresQuery(unsafeSQL: """
                    SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(address.database)'
                    """), logger: Logger(label: "test.postgres")).collect()
            }
        let unhealthy = await eventually(timeout: .seconds(10)) {
            (try? await fetch(base.appendingPathComponent("healthz")).status) == 503
        }
        #expect(unhealthy, "/healthz answers 503 while the database cannot be reached")
    }

    @Test("two nodes, one database: a session of one works on the other, a post on one is live on the other, a rename is seen at once",
          .timeLimit(.minutes(3)))
    func twoNodes() async throws {
        try await Self.twoNodes { a, b in
            let (owner, member, wid) = try await ChannelTests.team(a)
            let cid = try await owner.createChannel(in: wid, "공지")
            try await member.get("/w/\(wid)/channels")
            #expect(try await member.post("/w/\(wid)/c/\(cid)/join").status == .seeOther)
            // The member's browser, now talking to node B: the same cookies.
            let onB = b.browser()
            for (name, value) in member.cookies { onB.setCookie(name, value) }
            let page = try await onB.get("/w/\(wid)/c/\(cid)")
            #expect(page.status == .ok && page.text.contains("공지"), "node B knows node A's session and rooms")
            #expect(!page.text.contains("You are not in this channel."), "and that the member joined there")

            // As a browser does, a stream that ends is opened again from the last id it got.
            var lastId = "\(try await b.settledEventId())", created: String?
            _ = try await MessagingTests.say(owner, "/w/\(wid)/c/\(cid)", "노드 A에서 보낸 소식")
            for _ in 0..<5 where created == nil {
                let events = try? await EventStreamClient.connect(port: b.client.port!, headers: ["Cookie": onB.cookieHeader,
                                                                                                 "Last-Event-ID": lastId]) { reader in
                    var got: [ReceivedEvent] = []
                    while let event = try await reader.next() {
                        got.append(event)
                        if event.type == "message.created" { break }
                    }
                    return got
                }
                for event in events ?? [] {
                    lastId = event.id ?? lastId
                    if event.type == "message.created" { created = event.data }
                }
            }
            #expect(created?.contains("노드 A에서 보낸 소식") == true, "node B's stream carries node A's post")
            #expect(try await onB.get("/w/\(wid)/c/\(cid)").text.contains("노드 A에서 보낸 소식"))

            // Node B keeps the page; a rename on node A reaches it.
            _ = try await onB.get("/w/\(wid)/c/\(cid)")
            try await owner.get("/w/\(wid)/c/\(cid)/settings")
            #expect(try await owner.post("/w/\(wid)/c/\(cid)/settings", [("name", "새이름"), ("description", "")]).status == .seeOther)
            let renamed = try await eventually(timeout: .seconds(5)) {
                try await onB.get("/w/\(wid)/c/\(cid)").text.contains("새이름")
            }
            #expect(renamed, "node B's kept page follows node A's write")
            #expect(a.services.serverKey.code("invitation", "x") == b.services.serverKey.code("invitation", "x"),
                    "both nodes sign invitations and device cookies with the same key")
        }
    }

    @Test("two nodes: a node's kept reads follow exactly the tables the other node's writes change: a post renews the pages, not the sessions; a sign-out ends the session there",
          .timeLimit(.minutes(3)))
    func regionsAcrossNodes() async throws {
        try await Self.twoNodes { a, b in
            let (owner, member, wid) = try await ChannelTests.team(a)
            let cid = try await owner.createChannel(in: wid, "공지")
            try await member.get("/w/\(wid)/channels")
            try await member.post("/w/\(wid)/c/\(cid)/join")
            let onB = b.browser()
            for (name, value) in member.cookies { onB.setCookie(name, value) }
            let regions = b.services.database.regions
            let sessions = try #require(regions.region(named: "sessions"))
            let pages = try #require(regions.region(named: "message pages"))
            #expect(try await onB.get("/w/\(wid)/c/\(cid)").status == .ok)
            /// Node A's post, seen by node B's kept page (as its notice arrives, not by time).
            func postOnA(_ text: String) async throws {
                let before = pages.version
                _ = try await MessagingTests.say(owner, "/w/\(wid)/c/\(cid)", text)
                #expect(await eventually { pages.version != before }, "node B's kept messages count node A's post")
                #expect(try await onB.get("/w/\(wid)/c/\(cid)").text.contains(text))
                _ = try await onB.get("/w/\(wid)/c/\(cid)")
            }
            try await postOnA("첫 소식")
            let signedIn = sessions.version
            try await postOnA("둘째 소식")
            try await postOnA("셋째 소식")
            #expect(sessions.version == signedIn, "posts change no session: node B keeps its sessions")

            #expect(try await member.post("/logout").status == .seeOther)
            #expect(await eventually { sessions.version != signedIn }, "a sign-out on node A reaches node B's sessions")
            let after = try await onB.get("/w/\(wid)/c/\(cid)")
            #expect(after.status == .seeOther && after.headers[.location]?.contains("/login") == true, "and ends the session there")
        }
    }

    @Test("a node's own notice, arriving after it counted its commit, leaves what it kept since; another node's notice of the same change does not",
          .timeLimit(.minutes(3)))
    func ownNoticesSkipped() async throws {
        try await Self.app().run { app in
            let (owner, _, wid) = try await ChannelTests.team(app)
            #expect(try await owner.get("/w/\(wid)").status == .ok)
            let database = app.services.database, backend = try #require(database.postgres)
            let sessions = try #require(database.regions.region(named: "sessions"))
            let before = sessions.version
            func notify(from origin: String) throws {
                let payload = PostgresEventFeed.notice(changing: ["sessions"], from: origin)
                _ = try backend.withSessionNow { try $0.run("SELECT pg_notify(\(PostgresBackend.eventChannel), \(payload))") }
            }
            // Notices arrive in the order they were sent: once the other node's has counted, this
            // node's own came and went.
            try notify(from: backend.feed.origin)
            try notify(from: "another node")
            #expect(await eventually { sessions.version != before })
            #expect(sessions.version == before &+ 1, "only the other node's notice counts")
        }
    }

    /// Runs `body` with two live nodes on one new database. Node B's test client opens its one
    /// connection when node B starts, and sends its first request only after node A's setup; the
    /// server times a request head from the connection's opening (10 s), which the full suite's
    /// load outlasted ("I/O on closed channel"): node B waits longer.
    static func twoNodes(_ body: @escaping @Sendable (TestSession, TestSession) async throws -> Void) async throws {
        var nodeA = TestApp(), nodeB = TestApp { $0.connections.requestHeadTimeout = .seconds(600) }
        let address = try await PostgresTestCluster.shared().database()
        (nodeA.postgresAddress, nodeB.postgresAddress) = (address, address)
        let secondNode = nodeB
        try await nodeA.run(.live) { a in
            try await secondNode.run(.live) { b in try await body(a, b) }
        }
    }

    @Test("two nodes with one --files-dir: an image posted on one is served, with its thumbnail, by the other; no data folder holds it",
          .timeLimit(.minutes(3)))
    func sharedFiles() async throws {
        let shared = try makeEmptyFolder()
        defer { try? FileManager.default.removeItem(at: shared) }
        let address = try await PostgresTestCluster.shared().database()
        var nodeA = TestApp { $0.filesDirectory = shared.path }
        var nodeB = TestApp { $0.filesDirectory = shared.path; $0.connections.requestHeadTimeout = .seconds(600) }
        (nodeA.postgresAddress, nodeB.postgresAddress) = (address, address)
        let secondNode = nodeB
        try await nodeA.run(.live) { a in
            try await secondNode.run(.live) { b in
                let (owner, member, path, _) = try await UploadTests.room(a)
                #expect(try await owner.postMultipart(path + "/messages", [("content", "사진")], files: [
                    .init(filename: "photo.jpg", data: Fixture.data("photo.jpg"), contentType: "image/jpeg"),
                ]).status == .seeOther)
                let file = try #require(try await UploadTests.storedFiles(a).first)
                #expect(UploadTests.diskFiles(a, "files").count == 1 && UploadTests.diskFiles(b, "thumbs").count == 1,
                        "both nodes see the one files folder")
                for node in [a, b] {
                    let data = URL(fileURLWithPath: node.services.config.dataDirectory)
                    #expect(!FileManager.default.fileExists(atPath: data.appendingPathComponent("files").path), "nothing in a node's data folder")
                }
                let onB = b.browser()
                for (name, value) in member.cookies { onB.setCookie(name, value) }
                let original = try await onB.get(file.downloadURL)
                #expect(original.status == .ok && Data(buffer: original.body) == Fixture.data("photo.jpg"))
                let thumbnail = try await onB.get("/files/\(file.id!)/thumb")
                #expect(thumbnail.status == .ok && thumbnail.headers[.contentType] == "image/jpeg")
            }
        }
    }

    @Test("presence and typing cross nodes: a stream on node A shows online to a teammate on node B, typing on A reaches B, and leaving A is offline on B",
          .timeLimit(.minutes(3)))
    func presenceAcrossNodes() async throws {
        let address = try await PostgresTestCluster.shared().database()
        var nodeA = TestApp { $0.realtime.offlineGrace = .milliseconds(200) }
        var nodeB = TestApp { $0.realtime.offlineGrace = .milliseconds(200); $0.connections.requestHeadTimeout = .seconds(600) }
        (nodeA.postgresAddress, nodeB.postgresAddress) = (address, address)
        let secondNode = nodeB
        try await nodeA.run(.live) { a in
            try await secondNode.run(.live) { b in
                let (alice, bobOnA, wid, general) = try await MessagingTests.team(a)
                let (aliceId, bobId) = (try await a.userId("a@example.com"), try await a.userId("b@example.com"))
                let bob = b.browser()
                for (name, value) in bobOnA.cookies { bob.setCookie(name, value) }
                try await EventStreamClient.connect(port: b.client.port!, headers: RealtimeTests.headers(bob)) { bobStream in
                    _ = try await bobStream.readHead()
                    try await EventStreamClient.connect(port: a.client.port!, headers: RealtimeTests.headers(alice)) { aliceStream in
                        _ = try await aliceStream.readHead()
                        let online = try await PresenceTests.next("presence.changed", about: aliceId, &bobStream)
                        #expect(online?.data.contains(#""state":"online""#) == true, "node B tells Bob that Alice came online on node A")
                        #expect(try await PresenceTests.snapshot(bob).contains(#""\#(aliceId)":"online""#))
                        #expect(await b.services.hub.onlineMembers(ofRoom: general).contains(aliceId), "@here on node B counts her")
                        let bobKnown = await eventually(timeout: .seconds(5)) { await a.services.hub.presence(of: bobId) == .online }
                        #expect(bobKnown, "and node A knows Bob is on node B")

                        try await alice.get("/w/\(wid)/c/\(general)")
                        #expect(try await alice.post("/w/\(wid)/c/\(general)/typing").status == .noContent)
                        let typing = try await PresenceTests.next("typing", &bobStream)
                        #expect(typing?.data.contains(#""userId":\#(aliceId)"#) == true, "typing on node A reaches Bob's stream on node B")
                    }
                    let offline = try await PresenceTests.next("presence.changed", about: aliceId, &bobStream)
                    #expect(offline?.data.contains(#""state":"offline""#) == true, "her stream on node A closed: offline on node B")
                }
            }
        }
    }

    @Test("a node that dies without a word (SIGKILL): the people whose streams were there go offline on the others a heartbeat past its liveness",
          .timeLimit(.minutes(2)))
    func presenceOfADeadNode() async throws {
        let address = try await PostgresTestCluster.shared().database()
        var node = TestApp { $0.realtime.offlineGrace = .milliseconds(200) }
        node.postgresAddress = address
        try await node.run(.live) { app in
            let (alice, _, _, _) = try await MessagingTests.team(app)
            let bobId = try await app.userId("b@example.com")
            try await EventStreamClient.connect(port: app.client.port!, headers: RealtimeTests.headers(alice)) { aliceStream in
                _ = try await aliceStream.readHead()
                // Another node, where Bob had his tab, was last seen 25 s ago and is gone: it
                // neither beats nor says goodbye again.
                let died = ContinuousClock.now
                try await PostgresConnector(address: address, logger: Logger(label: "test.dead-node")).withConnection { connection in
                    for sql in ["INSERT INTO nodes (node_id, seen_at) VALUES ('dead-node', now() - interval '25 seconds')",
                                "INSERT INTO node_presence (node_id, user_id, state) VALUES ('dead-node', \(bobId), 'online')",
                                "SELECT pg_notify('\(PostgresNodeSignals.channel)', 'p:dead-node:\(bobId)')"] {
                        _ = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: Logger(label: "test.dead-node")).collect()
                    }
                }
                let online = try await PresenceTests.next("presence.changed", about: bobId, &aliceStream)
                #expect(online?.data.contains(#""state":"online""#) == true, "Bob on the other node, while it counts as alive")
                let offline = try await PresenceTests.next("presence.changed", about: bobId, &aliceStream)
                #expect(offline?.data.contains(#""state":"offline""#) == true, "the node's liveness ran out: Bob is offline")
                let took = ContinuousClock.now - died
                #expect(took >= .seconds(4) && took < .seconds(5 + 10 + 3), "within a heartbeat past the liveness: \(took)")
                #expect(await app.services.hub.presence(of: bobId) == .offline)
            }
        }
    }

    @Test("the sign-in limit counts every node's failures: three wrong passwords spread over two nodes slow the next try on either")
    func loginLimitAcrossNodes() async throws {
        let address = try await PostgresTestCluster.shared().database()
        let limits = LoginThrottle.Limits(perAccountAndAddress: 3, perAccount: 100, perAddress: 100, window: 180)
        var nodeA = TestApp { $0.loginLimits = limits }, nodeB = TestApp { $0.loginLimits = limits }
        (nodeA.postgresAddress, nodeB.postgresAddress) = (address, address)
        let secondNode = nodeB
        try await nodeA.run { a in
            try await secondNode.run { b in
                _ = try await a.signedInBrowser(email: "t@example.com", password: "right password")
                let (onA, onB) = (a.browser(), b.browser())
                #expect(try await onA.logIn(email: "t@example.com", password: "nope nope").status == .unauthorized)
                #expect(try await onB.logIn(email: "t@example.com", password: "nope nope").status == .unauthorized)
                #expect(try await onA.logIn(email: "t@example.com", password: "nope nope").status == .unauthorized)
                let blocked = try await onB.logIn(email: "t@example.com", password: "right password")
                #expect(blocked.status == .tooManyRequests, "node B counts node A's failures")
                #expect(try await onA.logIn(email: "t@example.com", password: "right password").status == .tooManyRequests)
                a.clock.advance(by: 181)
                b.clock.advance(by: 181)
                #expect(try await onB.logIn(email: "t@example.com", password: "right password").status == .seeOther)
            }
        }
    }

    @Test("ten workspace creations at once, spread over two nodes, with coins for one: one is made, the balance is never below zero")
    func oneWorkspaceForTheCoins() async throws {
        let address = try await PostgresTestCluster.shared().database()
        var nodeA = TestApp(), nodeB = TestApp()
        (nodeA.postgresAddress, nodeB.postgresAddress) = (address, address)
        let secondNode = nodeB
        try await nodeA.run { a in
            try await secondNode.run { b in
                let owner = try await a.signedInBrowser(email: "coins@example.com", nickname: "코인")
                #expect(a.services.config.signupCoins == a.services.config.workspacePrice, "coins for exactly one workspace")
                var tabs: [TestBrowser] = []
                for index in 0..<10 {
                    let tab = (index % 2 == 0 ? a : b).browser()
                    for (name, value) in owner.cookies { tab.setCookie(name, value) }
                    try await tab.get("/workspaces")
                    tabs.append(tab)
                }
                let ready = tabs
                let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                    for (index, tab) in ready.enumerated() {
                        group.addTask { try await tab.post("/workspaces", [("name", "팀\(index)"), ("description", "")]).status }
                    }
                    return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
                }
                #expect(statuses.filter { $0 == .seeOther }.count == 1, "\(statuses)")
                #expect(!statuses.contains { $0.code >= 500 }, "the others are refused, not failed: \(statuses)")
                let userId = try await a.userId("coins@example.com")
                #expect(try await a.count("SELECT COUNT(*) FROM workspaces WHERE owner_id = ?", [userId]) == 1)
                #expect(try await a.count("SELECT coin_balance FROM users WHERE id = ?", [userId]) == 0)
            }
        }
    }

    @Test("housekeeping runs on one node at a time: a round that finds another node sweeping leaves the events to it")
    func oneSweeper() async throws {
        let app = try await Self.app()
        let address = try #require(app.postgresAddress)
        try await app.run { app in
            _ = try await ChannelTests.team(app)
            app.clock.advance(by: app.services.config.eventRetention + 60)
            let sweeper = Housekeeper(database: app.database, events: app.services.events, sessions: app.services.sessions,
                                      files: app.services.files, retention: app.services.config.eventRetention,
                                      interval: .seconds(3600), logger: app.logs.logger())
            // Another node's sweep, holding the sweep's lock until told to let go.
            let (letGo, release) = AsyncStream.makeStream(of: Void.self)
            let (held, holding) = AsyncStream.makeStream(of: Void.self)
            let otherNode = Task {
                try await PostgresChoreLock.whileHeld("wsxsweep", connector: PostgresConnector(address: address, logger: app.logs.logger())) {
                    holding.yield()
                    for await _ in letGo { break }
                }
            }
            for await _ in held { break }
            #expect(await sweeper.sweep() == false, "the other node is sweeping")
            #expect(try app.services.events.prunedThrough() == 0, "and this node pruned nothing")
            release.yield()
            #expect(try await otherNode.value != nil)
            #expect(await sweeper.sweep() == true)
            #expect(try app.services.events.prunedThrough() > 0, "its lock gone, the next round sweeps")
        }
    }
}
