import Foundation
import Hummingbird
import Synchronization
import Views

/// Presence and typing, for scripts: a browser says its tabs are all hidden or idle, or in
/// use again (`POST /presence`); a page reads the presence of everyone who shares a workspace
/// with the viewer once (`GET /presence`), then follows `presence.changed`; the composer says
/// someone is typing (`POST …/typing`). All of it lives in the hub's memory, never in the database.
struct PresenceController: Sendable {
    /// How the routes find their room.
    let scope: RoomScope
    let hub: RealtimeHub
    let throttle: TypingThrottle

    func addRoutes(to group: RouterGroup<SignedInContext>) {
        group.post(Paths.presence.routerPath, use: setPresence)
        group.get(Paths.presence.routerPath, use: teammatesPresence)
        group.onEveryRoom(.post, { $0.typing }, scope: scope) { try await typing($0, $1, $2) }
    }

    /// `state` = `away` (every tab of this browser hidden or idle) or `active`.
    @Sendable func setPresence(_ request: Request, context: SignedInContext) async throws -> Response {
        let state = context.form["state"]
        guard state == "away" || state == "active" else { throw AppError.badRequest }
        await hub.setAway(state == "away", sessionId: context.session.id!, userId: context.userId)
        return Response(status: .noContent)
    }

    /// `{"sequence": N, "states": {"12": "online", "15": "away"}}`: everyone who shares a
    /// workspace with the viewer and is not offline.
    @Sendable func teammatesPresence(_ request: Request, context: SignedInContext) async throws -> Response {
        let (sequence, states) = await hub.presence(ofTeammatesOf: context.userId)
        let snapshot = PresenceSnapshot(sequence: sequence,
                                        states: Dictionary(uniqueKeysWithValues: states.map { (String($0.key), $0.value) }))
        return Pages.json(snapshot)
    }

    /// Someone typing in a room they are in; before its first message a DM has no room, and no
    /// one to tell.
    private func typing(_ target: ScopedRoom, _ request: Request, _ context: SignedInContext) async throws -> Response {
        guard let room = try target.joined() else { return Response(status: .noContent) }
        return await typing(in: room, context)
    }

    /// At most one signal per person and room every three seconds reaches the hub.
    private func typing(in room: Room, _ context: SignedInContext) async -> Response {
        if throttle.allows(userId: context.userId, roomId: room.id!) {
            await hub.typing(TypingPayload(workspaceId: room.workspaceId, roomId: room.id!, userId: context.userId,
                                           name: context.user.nickname))
        }
        return Response(status: .noContent)
    }
}

/// The answer of `GET /w/{wid}/presence`.
struct PresenceSnapshot: Codable, Sendable {
    let sequence: Int64
    let states: [String: RealtimeHub.Presence]
}

/// Lets one typing signal per person and room through every `interval`.
final class TypingThrottle: Sendable {
    private struct Key: Hashable { let userId: Int64, roomId: Int64 }
    private let last = Mutex<[Key: ContinuousClock.Instant]>([:])
    private let interval: Duration

    init(interval: Duration) { self.interval = interval }

    func allows(userId: Int64, roomId: Int64, now: ContinuousClock.Instant = .now) -> Bool {
        last.withLock { last in
            let key = Key(userId: userId, roomId: roomId)
            if let previous = last[key], now - previous < interval { return false }
            if last.count > 10_000 { last = last.filter { now - $0.value < interval } }
            last[key] = now
            return true
        }
    }

    /// The person sent their message: their next signal in the room goes through.
    func forget(userId: Int64, roomId: Int64) {
        _ = last.withLock { $0.removeValue(forKey: Key(userId: userId, roomId: roomId)) }
    }
}
