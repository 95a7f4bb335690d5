import Foundation
import Synchronization

/// The apps' Socket.IO sessions on this node (Engine.IO v4, over HTTP long-polling or, once
/// upgraded, a WebSocket): each with the packets waiting to go out, the namespaces
/// (conversations) it joined, and its heartbeat. Either transport takes its packets through
/// `poll`: now, when some come, or a ping every `pingInterval` however busy the session is; a
/// session that leaves a ping unanswered past `pingTimeout`, or stops polling, is closed.
final class SocketIOSessions: Sendable {
    struct Settings: Sendable {
        var pingInterval: Duration = .seconds(25)
        var pingTimeout: Duration = .seconds(20)
        /// The largest body a poll or a post may carry.
        var maxPayload = 1_000_000
        /// Whether sessions may move to a WebSocket (the open packet's `upgrades`).
        var webSocket = true
        /// Whether a namespace may be joined without an access token
        /// (`--socket-io-unauthenticated`).
        var unauthenticated = false
    }

    /// A conversation a socket joined: its room, and who joined it.
    struct Joined: Sendable, Equatable {
        let roomId: Int64
        /// Nil for a socket admitted without a token (`--socket-io-unauthenticated`).
        let userId: Int64?
        /// `channel` or `dm`: the event its chats come as.
        let event: String
    }

    private struct Session {
        /// The access token the handshake carried (query `token` or `Authorization`), if any.
        var token: String?
        var namespaces: [String: Joined] = [:]
        var queue: [String] = []
        var waiter: (id: Int, continuation: CheckedContinuation<[String], Never>)?
        var lastSeen: ContinuousClock.Instant
        var pingSentAt: ContinuousClock.Instant?
        /// When the next ping is due, whatever else was sent meanwhile (a client counts only
        /// pings as signs of life).
        var nextPingAt: ContinuousClock.Instant
        /// A WebSocket is probing to take over: a poll answers a noop at once, so the client
        /// can pause polling and finish the upgrade.
        var probing = false
        /// The session moved to a WebSocket: HTTP polls are refused.
        var upgraded = false
    }

    private struct State {
        var sessions: [String: Session] = [:]
        var nextWaiter = 0
    }

    let settings: Settings
    private let state = Mutex(State())

    init(settings: Settings = Settings()) {
        self.settings = settings
    }

    /// Opens a session (on a WebSocket from the start, or polling); answers its id and the
    /// Engine.IO open packet.
    func open(token: String?, onWebSocket: Bool = false) -> (sid: String, packet: String) {
        let sid = SecretToken.generate().prefix(20).description
        let now = ContinuousClock.now
        state.withLock { state in
            dropStale(&state, now: now)
            state.sessions[sid] = Session(token: token, lastSeen: now, nextPingAt: now + settings.pingInterval, upgraded: onWebSocket)
        }
        let upgrades = settings.webSocket && !onWebSocket ? ["websocket"] : []
        let open = OutgoingEvent.json(Handshake(sid: sid, upgrades: upgrades, pingInterval: Int(settings.pingInterval.components.seconds * 1000),
                                                pingTimeout: Int(settings.pingTimeout.components.seconds * 1000),
                                                maxPayload: settings.maxPayload))
        return (sid, "0" + open)
    }

    private struct Handshake: Encodable {
        let sid: String, upgrades: [String], pingInterval: Int, pingTimeout: Int, maxPayload: Int
    }

    /// Whether the session is open.
    func exists(_ sid: String) -> Bool {
        state.withLock { $0.sessions[sid] != nil }
    }

    /// The token the session's handshake carried.
    func token(of sid: String) -> String? {
        state.withLock { $0.sessions[sid]?.token }
    }

    /// Whether the session moved to a WebSocket (its HTTP polls are refused).
    func isUpgraded(_ sid: String) -> Bool {
        state.withLock { $0.sessions[sid]?.upgraded ?? false }
    }

    /// The packets waiting for `sid`, now or when some come, with a ping when one is due; nil
    /// for a session that is not (or no longer) open. The WebSocket's writer polls too.
    func poll(_ sid: String) async -> [String]? {
        let now = ContinuousClock.now
        let ready: [String]?? = state.withLock { state in
            dropStale(&state, now: now)
            guard var session = state.sessions[sid] else { return .some(nil) }
            session.lastSeen = now
            // A second poll at once takes over; the first answers with nothing.
            if let waiter = session.waiter {
                waiter.continuation.resume(returning: ["6"])
                session.waiter = nil
            }
            defer { state.sessions[sid] = session }
            if session.probing { return .some(["6"]) }
            let packets = take(&session, now: now)
            return packets.isEmpty ? nil : .some(packets)
        }
        if let ready { return ready }
        let (id, deadline) = state.withLock { state -> (Int, ContinuousClock.Instant) in
            state.nextWaiter += 1
            return (state.nextWaiter, state.sessions[sid].map(heartbeatDeadline) ?? now)
        }
        let timer = Task { [self] in
            try? await Task.sleep(until: deadline)
            state.withLock { state in
                guard var session = state.sessions[sid], let waiter = session.waiter, waiter.id == id else { return }
                let now = ContinuousClock.now
                if let sent = session.pingSentAt, now - sent >= settings.pingTimeout {
                    // The last ping went unanswered: the session is over.
                    state.sessions[sid] = nil
                    return waiter.continuation.resume(returning: ["1"])
                }
                session.waiter = nil
                let packets = take(&session, now: now)
                state.sessions[sid] = session
                waiter.continuation.resume(returning: packets.isEmpty ? ["6"] : packets)
            }
        }
        let packets = await withCheckedContinuation { (continuation: CheckedContinuation<[String], Never>) in
            state.withLock { state in
                guard var session = state.sessions[sid] else { return continuation.resume(returning: ["1"]) }
                let packets = take(&session, now: .now)
                if !packets.isEmpty {
                    state.sessions[sid] = session
                    return continuation.resume(returning: packets)
                }
                session.waiter = (id, continuation)
                state.sessions[sid] = session
            }
        }
        timer.cancel()
        return packets
    }

    /// The session's queue, emptied, with a ping after it when one is due.
    private func take(_ session: inout Session, now: ContinuousClock.Instant) -> [String] {
        var packets = session.queue
        session.queue = []
        if now >= session.nextPingAt {
            packets.append("2")
            session.pingSentAt = session.pingSentAt ?? now
            session.nextPingAt = now + settings.pingInterval
        }
        return packets
    }

    /// When a waiting poll must answer anyway: the next ping, or the end of the last one's wait.
    private func heartbeatDeadline(_ session: Session) -> ContinuousClock.Instant {
        min(session.nextPingAt, session.pingSentAt.map { $0 + settings.pingTimeout } ?? session.nextPingAt)
    }

    /// A WebSocket sent the upgrade probe: a waiting poll answers a noop, and so does every
    /// poll until the upgrade (or its failure).
    func probe(_ sid: String) {
        state.withLock { state in
            guard var session = state.sessions[sid] else { return }
            session.probing = true
            if let waiter = session.waiter {
                session.waiter = nil
                waiter.continuation.resume(returning: ["6"])
            }
            state.sessions[sid] = session
        }
    }

    /// The WebSocket finished the upgrade (`upgraded`), or went away before it.
    func endProbe(_ sid: String, upgraded: Bool) {
        state.withLock { state in
            state.sessions[sid]?.probing = false
            if upgraded { state.sessions[sid]?.upgraded = true }
        }
    }

    /// The client answered a ping (or, on a WebSocket, said anything: it is alive).
    func pong(_ sid: String) {
        state.withLock { state in
            state.sessions[sid]?.pingSentAt = nil
            state.sessions[sid]?.lastSeen = .now
        }
    }

    /// Queues `packets` for the session; a waiting poll answers at once.
    func send(_ packets: [String], to sid: String) {
        state.withLock { state in enqueue(&state, packets, sid) }
    }

    /// Notes that the session joined `namespace`.
    func join(_ sid: String, namespace: String, _ joined: Joined) {
        state.withLock { $0.sessions[sid]?.namespaces[namespace] = joined }
    }

    /// Leaves `namespace` (the client's own disconnect).
    func leave(_ sid: String, namespace: String) {
        _ = state.withLock { $0.sessions[sid]?.namespaces.removeValue(forKey: namespace) }
    }

    /// Closes the session (the client's close, or a failed heartbeat).
    func close(_ sid: String) {
        state.withLock { state in
            if let waiter = state.sessions[sid]?.waiter { waiter.continuation.resume(returning: ["1"]) }
            state.sessions[sid] = nil
        }
    }

    /// The sockets joined to `roomId`'s conversation, with their namespaces.
    func listeners(of roomId: Int64) -> [(sid: String, namespace: String, joined: Joined)] {
        state.withLock { state in
            state.sessions.flatMap { sid, session in
                session.namespaces.filter { $0.value.roomId == roomId }.map { (sid, $0.key, $0.value) }
            }
        }
    }

    /// Emits `packet`'s event to every socket in `roomId`'s conversation.
    func emit(toRoom roomId: Int64, event: String, json: String) {
        state.withLock { state in
            for (sid, session) in state.sessions {
                for (namespace, joined) in session.namespaces where joined.roomId == roomId && joined.event == event {
                    enqueue(&state, [SocketIOPacket.event(event, json: json, namespace: namespace).message], sid)
                }
            }
        }
    }

    /// Disconnects from `roomId`'s conversation the sockets of `userIds` (nil: everyone's,
    /// those admitted without a token included).
    func disconnect(roomId: Int64, userIds: Set<Int64>?) {
        state.withLock { state in
            for (sid, session) in state.sessions {
                for (namespace, joined) in session.namespaces
                where joined.roomId == roomId && userIds.map({ ids in joined.userId.map(ids.contains) ?? false }) ?? true {
                    state.sessions[sid]?.namespaces[namespace] = nil
                    enqueue(&state, [SocketIOPacket(.disconnect, namespace: namespace).message], sid)
                }
            }
        }
    }

    /// Disconnects every conversation of `userId`'s sockets (signed out everywhere, deactivated).
    func disconnect(userId: Int64) {
        state.withLock { state in
            for (sid, session) in state.sessions {
                for (namespace, joined) in session.namespaces where joined.userId == userId {
                    state.sessions[sid]?.namespaces[namespace] = nil
                    enqueue(&state, [SocketIOPacket(.disconnect, namespace: namespace).message], sid)
                }
            }
        }
    }

    /// How many sessions are open (for tests and metrics).
    var count: Int { state.withLock { $0.sessions.count } }

    private func enqueue(_ state: inout State, _ packets: [String], _ sid: String) {
        guard var session = state.sessions[sid] else { return }
        if let waiter = session.waiter {
            session.waiter = nil
            state.sessions[sid] = session
            waiter.continuation.resume(returning: session.queue + packets)
            state.sessions[sid]?.queue = []
            return
        }
        session.queue += packets
        state.sessions[sid] = session
    }

    /// Forgets sessions that stopped polling, or left a ping unanswered, past their time.
    private func dropStale(_ state: inout State, now: ContinuousClock.Instant) {
        let idle = settings.pingInterval + settings.pingTimeout
        for (sid, session) in state.sessions where session.waiter == nil {
            let silent = now - session.lastSeen > idle
            let unanswered = session.pingSentAt.map { now - $0 > settings.pingTimeout } ?? false
            if silent || unanswered { state.sessions[sid] = nil }
        }
    }
}
