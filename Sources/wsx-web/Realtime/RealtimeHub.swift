import Foundation
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// Fans committed events out to the open SSE streams of the people in each event's audience.
///
/// It learns of events from the outbox (a commit's events together, in id order), keeps
/// who-is-in-which-room in memory, updated by the events themselves, and so delivers without a
/// database query. Each event is encoded once; every subscriber gets the same bytes, and each
/// event loop gets one task per commit for all of its streams (`DeliveryPlan`), so the posts of
/// one group commit reach a stream in one write. A stream that falls too far behind
/// is disconnected by its handler, never skipped: it reconnects and replays from the outbox.
actor RealtimeHub: Service {
    /// Bounds and rhythms, from flags.
    struct Settings: Sendable {
        /// Unsent bytes a stream may have waiting before it is disconnected as a slow reader.
        var bufferBytes = 1 << 20
        /// A comment line this often keeps idle streams open through proxies.
        var heartbeat: Duration = .seconds(15)
        /// While events keep coming, how long a stream's frames may wait to share one write
        /// (`StreamFlusher`); after a quiet spell they go at once. Ten milliseconds is less than
        /// one frame of a 60 Hz screen.
        var writeDelay: Duration = .milliseconds(10)
        /// Open streams one account may have (`--max-event-streams-per-account`); a new one past
        /// it closes the account's oldest. A browser holds one (its tabs share it), so twenty is
        /// a person's every browser and device with room to spare; 20,000 from one account took
        /// every descriptor the server had.
        var maxStreamsPerAccount = 20
        /// How long someone whose last stream closed still shows as online: going from one page
        /// to the next closes the stream and opens another, which is not leaving.
        var offlineGrace: Duration = .seconds(5)
        /// Whether other nodes share this hub's presence and typing (several nodes on one
        /// PostgreSQL database): the hub then tells `signals` what happens here, and takes in
        /// what happens there (`otherNodesPresence`, `typingElsewhere`).
        var sharesWithOtherNodes = false
    }

    /// What one node tells the others: a person's presence here (their streams on this node),
    /// or someone typing.
    enum NodeSignal: Sendable, Equatable {
        case presence(userId: Int64, state: Presence)
        case typing(TypingPayload)
    }

    /// An open stream's side of the hub.
    struct Subscription: Sendable {
        let id: Int
        /// The newest event the hub had handled when the subscription began: replay covers
        /// everything up to it, `frames` everything after.
        let handledThrough: Int64
        /// The rooms the user was in at that moment, for replay.
        let rooms: [Int64]
    }

    private struct Subscriber {
        let userId: Int64
        let sessionId: Int64
        let stream: EventStreamHandle
    }

    private let outbox: EventOutbox
    private let settings: Settings
    private let logger: Logger
    private var subscribers: [Int: Subscriber] = [:]
    private var subscribersByUser: [Int64: Set<Int>] = [:]
    private var membersByRoom: [Int64: Set<Int64>] = [:]
    private var roomsByUser: [Int64: Set<Int64>] = [:]
    private var handledThrough: Int64
    /// Sessions whose browser said every tab is hidden or idle (`POST /presence`).
    private var awaySessions: Set<Int64> = []
    /// Open streams per session, so a stream's end knows at once whether it was its session's
    /// last (scanning every subscriber there made a mass disconnect quadratic).
    private var streamsBySession: [Int64: Int] = [:]
    /// What teammates were last told of each person (absent: offline), and a counter every
    /// change takes, so a page's snapshot and the changes after it apply in order.
    private var announced: [Int64: Presence] = [:]
    private var presenceSequence: Int64 = 0
    /// People's presence on the other nodes, merged (absent: offline everywhere else).
    private var elsewhere: [Int64: Presence] = [:]
    /// What the other nodes were last told of each person's presence here (absent: offline).
    private var shared: [Int64: Presence] = [:]
    /// What this hub tells the other nodes, when it shares with them (`Settings.sharesWithOtherNodes`).
    nonisolated let signals: AsyncStream<NodeSignal>
    private let signalSink: AsyncStream<NodeSignal>.Continuation
    private var nextSubscriberId = 1
    private var isShutDown = false
    /// `handledThrough`, readable without awaiting the actor (pages embed it).
    private let latest: Mutex<Int64>

    /// Loads room membership and the newest event id in one read, so the state and the event
    /// stream line up: events after that id are applied as they arrive.
    init(database: AppDatabase, outbox: EventOutbox, settings: Settings, logger: Logger) throws {
        self.outbox = outbox
        self.settings = settings
        self.logger = logger
        (signals, signalSink) = AsyncStream.makeStream(of: NodeSignal.self, bufferingPolicy: .unbounded)
        let (latestId, memberships) = try database.query { tx in (try tx.events.latestId(), try tx.rooms.allMemberships()) }
        handledThrough = latestId
        latest = Mutex(latestId)
        (membersByRoom, roomsByUser) = Self.index(memberships)
    }

    /// The pairs as members by room and rooms by member.
    private static func index(_ memberships: [(roomId: Int64, userId: Int64)]) -> ([Int64: Set<Int64>], [Int64: Set<Int64>]) {
        var members: [Int64: Set<Int64>] = [:], rooms: [Int64: Set<Int64>] = [:]
        for (room, user) in memberships {
            members[room, default: []].insert(user)
            rooms[user, default: []].insert(room)
        }
        return (members, rooms)
    }

    /// Reads who is in which room afresh, after another process (an import) wrote rooms and
    /// members without events. Events committed before this read and delivered after it change
    /// nothing more: adding someone already in a room, or taking out someone already out.
    func reloadMemberships(from database: AppDatabase) {
        guard let rows = try? database.query({ tx in try tx.rooms.allMemberships() }) else { return }
        (membersByRoom, roomsByUser) = Self.index(rows)
    }

    /// The newest event id delivered to subscribers.
    nonisolated var latestEventId: Int64 { latest.withLock { $0 } }

    var subscriberCount: Int { subscribers.count }

    /// The room's members who have an event stream open now, on this node or another (`@here`).
    func onlineMembers(ofRoom roomId: Int64) -> Set<Int64> {
        (membersByRoom[roomId] ?? []).filter { subscribersByUser[$0]?.isEmpty == false || elsewhere[$0] != nil }
    }

    /// Adds the stream of one signed-in browser; events after `handledThrough` go to it.
    func subscribe(userId: Int64, sessionId: Int64, stream: EventStreamHandle) -> Subscription {
        let id = nextSubscriberId
        nextSubscriberId += 1
        if isShutDown {
            stream.end()
        } else {
            if let open = subscribersByUser[userId], open.count >= settings.maxStreamsPerAccount {
                // Ids grow with time: the smallest are the oldest.
                for oldest in open.sorted().prefix(open.count - settings.maxStreamsPerAccount + 1) {
                    logger.debug("closing an account's oldest event stream", metadata: ["user": "\(userId)"])
                    disconnect(oldest)
                }
            }
            subscribers[id] = Subscriber(userId: userId, sessionId: sessionId, stream: stream)
            subscribersByUser[userId, default: []].insert(id)
            streamsBySession[sessionId, default: 0] += 1
            presenceMayHaveChanged(userId)
        }
        return Subscription(id: id, handledThrough: handledThrough,
                            rooms: Array(roomsByUser[userId] ?? []).sorted())
    }

    func run() async throws {
        // On graceful shutdown the loops are cancelled and every stream ends.
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask { await self.consumeCommittedEvents() }
                group.addTask { await self.beatHearts() }
            }
        }
        shutDown()
    }

    private func consumeCommittedEvents() async {
        for await events in outbox.committed {
            if isShutDown { return }
            deliver(events)
        }
    }

    private func beatHearts() async {
        let frame = SSEFrame.comment("ping")
        while !isShutDown, !Task.isCancelled {
            try? await Task.sleep(for: settings.heartbeat)
            if isShutDown || Task.isCancelled { return }
            var plan = DeliveryPlan()
            plan.add(frame, to: streams(subscribers.keys))
            plan.send()
        }
    }

    /// Ends every stream so the server can stop.
    private func shutDown() {
        isShutDown = true
        logger.info("ending event streams", metadata: ["count": "\(subscribers.count)"])
        for (_, subscriber) in subscribers { subscriber.stream.end() }
        subscribers.removeAll()
        subscribersByUser.removeAll()
        streamsBySession.removeAll()
        outbox.finish()
        signalSink.finish()
    }

    /// Hands a commit's events to their audiences' streams, applying the membership changes
    /// they carry in order.
    private func deliver(_ events: [CommittedEvent]) {
        var plan = DeliveryPlan()
        for committed in events where committed.id > handledThrough {
            apply(committed, to: &plan)
        }
        plan.send()
    }

    /// Plans one event for its audience and applies the membership changes it carries.
    private func apply(_ committed: CommittedEvent, to plan: inout DeliveryPlan) {
        let event = committed.event
        if case .added(let room, let users)? = event.membership {
            for user in users {
                membersByRoom[room, default: []].insert(user)
                roomsByUser[user, default: []].insert(room)
            }
        }
        let frame = SSEFrame.event(id: committed.id, type: event.type.rawValue, data: event.payload)
        let recipients: Set<Int64> = switch event.audience {
        case .user(let id): [id]
        case .room(let id): membersByRoom[id] ?? []
        }
        plan.add(frame, to: streams(recipients.lazy.flatMap { self.subscribersByUser[$0] ?? [] }))
        switch event.membership {
        case .removed(let room, let users)?:
            for user in users {
                membersByRoom[room]?.remove(user)
                roomsByUser[user]?.remove(room)
            }
        case .roomsDeleted(let rooms)?:
            for room in rooms {
                for user in membersByRoom.removeValue(forKey: room) ?? [] { roomsByUser[user]?.remove(room) }
            }
        default:
            break
        }
        if !event.closesSessions.isEmpty {
            // What is planned so far goes out before these streams end.
            plan.send()
            let closing = Set(event.closesSessions)
            for (id, subscriber) in subscribers where closing.contains(subscriber.sessionId) {
                disconnect(id)
            }
        }
        handledThrough = committed.id
        latest.withLock { $0 = committed.id }
    }

    /// The open streams of these subscribers.
    private func streams(_ ids: some Sequence<Int>) -> [EventStreamHandle] {
        ids.compactMap { subscribers[$0]?.stream }
    }

    private func disconnect(_ id: Int) {
        subscribers[id]?.stream.end()
        release(id)
    }

    /// Forgets a stream that ended (the browser left, or its handler cut it off).
    func release(_ id: Int) {
        guard let subscriber = subscribers.removeValue(forKey: id) else { return }
        subscribersByUser[subscriber.userId]?.remove(id)
        if subscribersByUser[subscriber.userId]?.isEmpty == true { subscribersByUser[subscriber.userId] = nil }
        streamsBySession[subscriber.sessionId, default: 1] -= 1
        if streamsBySession[subscriber.sessionId] == 0 {
            streamsBySession[subscriber.sessionId] = nil
            awaySessions.remove(subscriber.sessionId)
        }
        presenceMayHaveChanged(subscriber.userId)
    }

    // MARK: Presence and typing (in memory only: never in the database or the replay log)

    /// Whether the person is here: online (a stream open, some tab in use), away (every
    /// browser's tabs hidden or idle), offline (no stream).
    enum Presence: String, Sendable, Codable {
        case online, away, offline
    }

    /// A browser's tabs are all hidden or idle (`away`), or one is in use again.
    /// Kept even before the browser's stream opens (the two race); forgotten with its last stream.
    func setAway(_ away: Bool, sessionId: Int64, userId: Int64) {
        if away { awaySessions.insert(sessionId) } else { awaySessions.remove(sessionId) }
        if awaySessions.count > 100_000 {
            awaySessions = awaySessions.filter { streamsBySession[$0] != nil }
        }
        presenceMayHaveChanged(userId)
    }

    /// What the person's teammates (`teammates(of:)`) show as now, those not offline, and the
    /// counter of the last change.
    func presence(ofTeammatesOf userId: Int64) -> (sequence: Int64, states: [Int64: Presence]) {
        var states: [Int64: Presence] = [:]
        for user in teammates(of: userId) {
            if let state = announced[user] { states[user] = state }
        }
        return (presenceSequence, states)
    }

    /// Whether someone is online (a tab open and in use), away, or offline now.
    func presence(of userId: Int64) -> Presence {
        currentPresence(userId)
    }

    /// Here and elsewhere together: online if online anywhere, else away if away anywhere.
    private func currentPresence(_ userId: Int64) -> Presence {
        Self.merged([presenceHere(userId), elsewhere[userId] ?? .offline])
    }

    /// By their streams on this node.
    private func presenceHere(_ userId: Int64) -> Presence {
        guard let open = subscribersByUser[userId], !open.isEmpty else { return .offline }
        return open.allSatisfy { subscribers[$0].map { awaySessions.contains($0.sessionId) } ?? true } ? .away : .online
    }

    /// Several places' presence as one: online if any is, else away if any is, else offline.
    static func merged(_ states: some Sequence<Presence>) -> Presence {
        var result = Presence.offline
        for state in states {
            if state == .online { return .online }
            if state == .away { result = .away }
        }
        return result
    }

    /// People's presence on the other nodes changed (nil: offline everywhere else); with
    /// `replacingAll`, the states given are all there are, and everyone not among them is
    /// offline elsewhere (a node stopped, or this one read them afresh).
    func otherNodesPresence(_ states: [Int64: Presence], replacingAll: Bool = false) {
        var changed = Set(states.keys)
        if replacingAll { changed.formUnion(elsewhere.keys) }
        for user in changed {
            let state = states[user] ?? .offline
            elsewhere[user] = state == .offline ? nil : state
        }
        for user in changed { presenceMayHaveChanged(user) }
    }

    /// How the other nodes were last told each person is here (online or away; absent: offline).
    func presenceSharedWithOtherNodes() -> [Int64: Presence] {
        shared
    }

    /// Someone typing on another node: to this node's streams of the room's other members.
    func typingElsewhere(_ payload: TypingPayload) {
        deliverTyping(payload)
    }

    /// Tells teammates when someone's presence changed; going offline waits `offlineGrace`
    /// first, so moving between pages is not announced. Other nodes are told at once of a
    /// change here.
    private func presenceMayHaveChanged(_ userId: Int64) {
        if settings.sharesWithOtherNodes, !isShutDown {
            let here = presenceHere(userId)
            if here != (shared[userId] ?? .offline) {
                shared[userId] = here == .offline ? nil : here
                signalSink.yield(.presence(userId: userId, state: here))
            }
        }
        let now = currentPresence(userId)
        let before = announced[userId] ?? .offline
        guard now != before else { return }
        if now == .offline {
            let grace = settings.offlineGrace
            Task { [weak self] in
                try? await Task.sleep(for: grace)
                await self?.settleOffline(userId)
            }
        } else {
            announce(userId, now)
        }
    }

    private func settleOffline(_ userId: Int64) {
        if currentPresence(userId) == .offline, announced[userId] != nil { announce(userId, .offline) }
    }

    private func announce(_ userId: Int64, _ state: Presence) {
        // With other nodes, microseconds of the wall clock, never less than one past the last: a
        // page may read its snapshot from one node and its stream from another, and both count alike.
        presenceSequence = settings.sharesWithOtherNodes
            ? max(presenceSequence + 1, Int64(Date().timeIntervalSince1970 * 1_000_000)) : presenceSequence + 1
        announced[userId] = state == .offline ? nil : state
        let payload = PresencePayload(userId: userId, state: state, sequence: presenceSequence)
        // Their own tabs know where they are; teammates are told.
        send(EventType.presenceChanged, payload, to: teammates(of: userId).subtracting([userId]))
    }

    /// Everyone who shares a room with the person, the person included: every workspace
    /// member is in its default room, so these are the people who share a workspace with them.
    private func teammates(of userId: Int64) -> Set<Int64> {
        var people: Set<Int64> = [userId]
        for room in roomsByUser[userId] ?? [] { people.formUnion(membersByRoom[room] ?? []) }
        return people
    }

    /// "Someone is typing" in a room, to its other members' streams; nothing if the typist is
    /// not a member.
    func typing(_ payload: TypingPayload) {
        if settings.sharesWithOtherNodes, !isShutDown { signalSink.yield(.typing(payload)) }
        deliverTyping(payload)
    }

    private func deliverTyping(_ payload: TypingPayload) {
        guard let members = membersByRoom[payload.roomId], members.contains(payload.userId) else { return }
        send(EventType.typing, payload, to: members.subtracting([payload.userId]))
    }

    /// An event that is never stored: no id, so it neither moves a browser's place in the
    /// replay log nor is replayed.
    private func send(_ type: EventType, _ payload: some Encodable, to people: Set<Int64>) {
        var plan = DeliveryPlan()
        plan.add(SSEFrame.event(id: nil, type: type.rawValue, data: OutgoingEvent.json(payload)),
                 to: streams(people.lazy.flatMap { self.subscribersByUser[$0] ?? [] }))
        plan.send()
    }
}

/// `presence.changed`: someone came online, went away or offline (to everyone who shares a
/// workspace with them; not stored). `sequence` orders it after the snapshot a page read.
struct PresencePayload: Codable, Sendable {
    let userId: Int64
    let state: RealtimeHub.Presence
    let sequence: Int64
}

/// `typing`: someone is writing in a room (to its other members; not stored).
struct TypingPayload: Codable, Sendable, Equatable {
    let workspaceId: Int64
    let roomId: Int64
    let userId: Int64
    let name: String
}
