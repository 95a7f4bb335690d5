import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle

/// Presence and typing between the nodes on one database, never in the event log.
///
/// - **Presence.** Each node keeps in `node_presence` how each person is on it (their streams
///   there: online or away; no row: offline) and says so on the signals channel
///   (`p:<node>:<user>`); the other nodes read that person's rows and merge them into their hub
///   (`RealtimeHub.otherNodesPresence`). A node's rows count while it was seen within
///   `liveness`: each node notes itself every `heartbeat` and then reads everyone afresh, so
///   a node that died (or a notice that was lost) is corrected within a heartbeat past its
///   liveness. A node that stops cleanly removes its rows and tells the others at once (`r:<node>`).
/// - **Typing.** Sent on the channel as it is (`t:<node>:<json>`), delivered by each other node
///   to its streams of the room's members.
struct PostgresNodeSignals: Service {
    /// The channel nodes signal each other on.
    static let channel = "wsx_signals"
    /// How often a node notes itself alive and reads everyone's presence afresh.
    static let heartbeat: Duration = .seconds(10)
    /// How long a node counts as alive after it was last seen, in seconds.
    static let liveness = 30

    let hub: RealtimeHub
    let connector: PostgresConnector
    /// Told how many nodes are alive at every heartbeat.
    let nodes: LiveNodes
    /// This process's name among the nodes: a new one at every start.
    let nodeId = UUID().uuidString

    func run() async throws {
        enum Work: Sendable { case signal(RealtimeHub.NodeSignal), beat }
        let (work, sink) = AsyncStream.makeStream(of: Work.self, bufferingPolicy: .unbounded)
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    for await signal in hub.signals { sink.yield(.signal(signal)) }
                    sink.finish()
                }
                group.addTask {
                    while !Task.isCancelled {
                        sink.yield(.beat)
                        try? await Task.sleep(for: Self.heartbeat)
                    }
                }
                group.addTask {
                    await send(work) { work in
                        switch work {
                        case .signal(let signal): signal
                        case .beat: nil
                        }
                    }
                }
                group.addTask { await listen() }
            }
        }
        await leave()
    }

    // MARK: Telling the others

    /// Writes each signal (nil: a heartbeat) on a connection of its own, connecting again when
    /// it drops; after a reconnect the node's presence rows are written afresh from the hub.
    private func send<Work: Sendable>(_ work: AsyncStream<Work>, _ signal: @Sendable (Work) -> RealtimeHub.NodeSignal?) async {
        var connection: PostgresConnection?
        for await item in work {
            do {
                if connection == nil {
                    let fresh = try await connector.connect(as: "wsx-web node signals")
                    connection = fresh
                    try await rewrite(on: fresh)
                }
                guard let open = connection else { continue }
                if let signal = signal(item) {
                    try await tell(signal, on: open)
                } else {
                    try await beat(on: open)
                }
            } catch {
                if !Task.isCancelled {
                    connector.logger.warning("cannot signal the other nodes; connecting again", metadata: ["error": "\(String(reflecting: error))"])
                }
                try? await connection?.close()
                connection = nil
            }
        }
        try? await connection?.close()
    }

    private func tell(_ signal: RealtimeHub.NodeSignal, on connection: PostgresConnection) async throws {
        let logger = connector.logger
        switch signal {
        case .presence(let userId, let state):
            if state == .offline {
                _ = try await connection.query("DELETE FROM node_presence WHERE node_id = \(nodeId) AND user_id = \(userId)", logger: logger).collect()
            } else {
                _ = try await connection.query("""
                    INSERT INTO node_presence (node_id, user_id, state) VALUES (\(nodeId), \(userId), \(state.rawValue))
                    ON CONFLICT (node_id, user_id) DO UPDATE SET state = EXCLUDED.state
                    """, logger: logger).collect()
            }
            try await notify("p:\(nodeId):\(userId)", on: connection)
        case .typing(let payload):
            try await notify("t:\(nodeId):" + OutgoingEvent.json(payload), on: connection)
        }
    }

    private func notify(_ payload: String, on connection: PostgresConnection) async throws {
        _ = try await connection.query("SELECT pg_notify(\(Self.channel), \(payload))", logger: connector.logger).collect()
    }

    /// Notes this node alive, forgets nodes long gone, and reads everyone's presence afresh.
    private func beat(on connection: PostgresConnection) async throws {
        let logger = connector.logger
        _ = try await connection.query("""
            INSERT INTO nodes (node_id, seen_at) VALUES (\(nodeId), now()) ON CONFLICT (node_id) DO UPDATE SET seen_at = now()
            """, logger: logger).collect()
        _ = try await connection.query("""
            DELETE FROM node_presence WHERE node_id IN (SELECT node_id FROM nodes WHERE seen_at < now() - interval '1 hour')
            """, logger: logger).collect()
        _ = try await connection.query("DELETE FROM nodes WHERE seen_at < now() - interval '1 hour'", logger: logger).collect()
        let alive = try await connection.query("""
            SELECT COUNT(*) FROM nodes WHERE seen_at > now() - make_interval(secs => \(Self.liveness))
            """, logger: logger).collect().first?.decode(Int.self) ?? 1
        nodes.set(alive)
        await hub.otherNodesPresence(try await everyoneElsewhere(on: connection), replacingAll: true)
    }

    /// This node's rows as the hub has them now (after a connection of this node dropped, some
    /// of its writes may be missing).
    private func rewrite(on connection: PostgresConnection) async throws {
        let here = await hub.presenceSharedWithOtherNodes()
        _ = try await connection.query("DELETE FROM node_presence WHERE node_id = \(nodeId)", logger: connector.logger).collect()
        for (userId, state) in here { try await tell(.presence(userId: userId, state: state), on: connection) }
        try await beat(on: connection)
    }

    /// Removes this node's rows and tells the others to read everyone afresh.
    private func leave() async {
        _ = try? await connector.withConnection { connection in
            _ = try await connection.query("DELETE FROM node_presence WHERE node_id = \(nodeId)", logger: connector.logger).collect()
            _ = try await connection.query("DELETE FROM nodes WHERE node_id = \(nodeId)", logger: connector.logger).collect()
            try await notify("r:\(nodeId)", on: connection)
        }
    }

    // MARK: Hearing the others

    private func listen() async {
        while !Task.isCancelled {
            do {
                try await connector.withConnection { connection in
                    try await connection.listen(on: Self.channel) { notifications in
                        // Listening first: a change between the two is read now or noticed after.
                        await hub.otherNodesPresence(try await everyoneElsewhere(on: connection), replacingAll: true)
                        for try await notification in notifications {
                            try await heard(notification.payload, on: connection)
                        }
                    }
                }
            } catch {
                if !Task.isCancelled {
                    connector.logger.warning("lost the other nodes' signals; listening again", metadata: ["error": "\(String(reflecting: error))"])
                }
            }
            try? await Task.sleep(for: .milliseconds(500))
        }
    }

    private func heard(_ payload: String, on connection: PostgresConnection) async throws {
        let parts = payload.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[1] != nodeId else { return }
        switch parts[0] {
        case "p":
            guard parts.count == 3, let userId = Int64(parts[2]) else { return }
            let states = try await connection.query("""
                SELECT node_presence.state FROM node_presence JOIN nodes ON nodes.node_id = node_presence.node_id
                WHERE node_presence.user_id = \(userId) AND node_presence.node_id <> \(nodeId)
                  AND nodes.seen_at > now() - make_interval(secs => \(Self.liveness))
                """, logger: connector.logger).collect().compactMap { try RealtimeHub.Presence(rawValue: $0.decode(String.self)) }
            await hub.otherNodesPresence([userId: RealtimeHub.merged(states)])
        case "t":
            guard parts.count == 3, let typing = try? JSONDecoder().decode(TypingPayload.self, from: Data(parts[2].utf8)) else { return }
            await hub.typingElsewhere(typing)
        case "r":
            await hub.otherNodesPresence(try await everyoneElsewhere(on: connection), replacingAll: true)
        default:
            return
        }
    }

    /// Everyone online or away on another live node, merged per person.
    private func everyoneElsewhere(on connection: PostgresConnection) async throws -> [Int64: RealtimeHub.Presence] {
        let rows = try await connection.query("""
            SELECT node_presence.user_id, node_presence.state FROM node_presence JOIN nodes ON nodes.node_id = node_presence.node_id
            WHERE node_presence.node_id <> \(nodeId) AND nodes.seen_at > now() - make_interval(secs => \(Self.liveness))
            """, logger: connector.logger).collect()
        var states: [Int64: [RealtimeHub.Presence]] = [:]
        for row in rows {
            let (userId, state) = try row.decode((Int64, String).self)
            if let presence = RealtimeHub.Presence(rawValue: state) { states[userId, default: []].append(presence) }
        }
        return states.mapValues { RealtimeHub.merged($0) }
    }
}
