import Foundation
import Hummingbird
import HummingbirdCore
import NIOCore

/// `/socket.io/`: the apps' live updates as Socket.IO v5 over Engine.IO v4, long-polling here
/// and upgraded to a WebSocket in `SocketIOWebSocket` (`../shared/APP-API.md` §6). One namespace per conversation, `/ws-channel-{channel_id}` and
/// `/ws-dm-{room_id}`; after any post there, from an app or the web, every socket in it gets
/// `channel` (a ChannelChat) or `dm` (a DMChat), the sender's included.
///
/// Room ids are no key to a room: a namespace is joined with an access token (the connect
/// packet's `auth.token`, the handshake's `token` query parameter, or its `Authorization`), never
/// a cookie, and only by a member of the room; a member removed from it is disconnected, and so
/// is everyone when it is deleted. Events come from the same outbox as the web's streams.
/// `--socket-io-unauthenticated` admits a token-less connect to a public channel or a DM whose
/// opaque id the namespace names (the apps' own handshake), weaker by design: such a socket
/// belongs to nobody, so only the room's deletion disconnects it.
struct SocketIOController: Sendable {
    let sessions: SocketIOSessions
    let appSessions: AppSessions
    let database: AppDatabase

    init(_ services: AppServices) {
        sessions = services.socketIOSessions
        appSessions = services.appSessions
        database = services.database
    }

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/socket.io", use: poll)
        router.post("/socket.io", use: post)
    }

    /// Relays the committed events the apps' sockets care for, until the outbox ends.
    func relay(_ events: AsyncStream<[CommittedEvent]>) async {
        for await batch in events {
            for committed in batch { await relay(committed.event) }
        }
    }

    private func relay(_ event: OutgoingEvent) async {
        switch event.membership {
        case .removed(let room, let users)?: sessions.disconnect(roomId: room, userIds: Set(users))
        case .roomsDeleted(let rooms)?: for room in rooms { sessions.disconnect(roomId: room, userIds: nil) }
        default: break
        }
        if event.type == .sessionRevoked, case .user(let userId) = event.audience,
           !event.payload.contains(#""reason":"logout""#) {
            sessions.disconnect(userId: userId)
        }
        guard event.type == .messageCreated, case .room(let roomId) = event.audience, let messageId = event.messageId,
              !sessions.listeners(of: roomId).isEmpty,
              let (name, json) = try? await chat(messageId, roomId: roomId) else { return }
        sessions.emit(toRoom: roomId, event: name, json: json)
    }

    /// The message as the apps decode it, and the event it comes as; nil for a reply kept in its thread.
    private func chat(_ messageId: Int64, roomId: Int64) async throws -> (String, String)? {
        try await database.queryOffLoop { tx -> (String, String)? in
            guard let row = try tx.messages.rows(ids: [messageId]).first, row.inTimeline, !row.isDeleted,
                  let room = try tx.rooms.room(id: roomId) else { return nil }
            let author = try row.authorId.flatMap { try tx.accounts.user(id: $0) }
            var wanted = APIIdBook.Wanted()
            wanted.add(.messages, row.id)
            wanted.add(.rooms, roomId)
            if let author { wanted.add(author) }
            for file in row.attachments { wanted.add(.files, file.id) }
            let book = try APIIdBook.load(tx, wanted)
            let roomPublicId = try book.id(.rooms, roomId)
            let place: APIChat.Place = room.kind == .channel ? .channel(id: roomPublicId, name: room.name) : .dm(roomId: roomPublicId)
            let chat = try APIChat(row, author: author, place: place, book: book)
            return (room.kind == .channel ? "channel" : "dm", OutgoingEvent.json(chat))
        }
    }

    @Sendable func poll(_ request: Request, context: AppRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        if let refusal = Self.check(query) { return refusal }
        guard let sid = query["sid"].map(String.init) else {
            let token = query["token"].map(String.init) ?? request.headers[.authorization]
            return Self.text(sessions.open(token: token).packet)
        }
        if sessions.isUpgraded(sid) { return Self.failure(3, "Bad request") }
        guard let packets = await sessions.poll(sid) else { return Self.failure(1, "Session ID unknown") }
        return Self.text(EngineIO.payload(packets))
    }

    @Sendable func post(_ request: Request, context: AppRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        if let refusal = Self.check(query) { return refusal }
        guard let sid = query["sid"].map(String.init), sessions.exists(sid) else { return Self.failure(1, "Session ID unknown") }
        guard !sessions.isUpgraded(sid), let body = try? await request.body.collect(upTo: sessions.settings.maxPayload) else {
            sessions.close(sid)
            return Self.failure(3, "Bad request")
        }
        for packet in EngineIO.packets(in: String(buffer: body)) { await receive(packet, sid: sid) }
        return Self.text("ok")
    }

    /// One Engine.IO packet from the app, by either transport.
    func receive(_ packet: some StringProtocol, sid: String) async {
        switch packet.first {
        case "1": sessions.close(sid)
        case "2": sessions.send(["3" + packet.dropFirst()], to: sid)
        case "3": sessions.pong(sid)
        case "4":
            guard let message = SocketIOPacket(parsing: String(packet.dropFirst())) else { return }
            await handle(message, sid: sid)
        default: return
        }
    }

    /// A Socket.IO packet from the app: a namespace to join or leave (the apps emit nothing else).
    private func handle(_ packet: SocketIOPacket, sid: String) async {
        switch packet.kind {
        case .connect where packet.namespace == "/":
            sessions.send([SocketIOPacket(.connect, namespace: "/", data: OutgoingEvent.json(["sid": sid])).message], to: sid)
        case .connect:
            let auth = packet.data.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            let token = auth?["token"] as? String ?? sessions.token(of: sid)
            if let joined = await admit(packet.namespace, token: token) {
                sessions.join(sid, namespace: packet.namespace, joined)
                sessions.send([SocketIOPacket(.connect, namespace: packet.namespace, data: OutgoingEvent.json(["sid": sid])).message], to: sid)
            } else {
                let refusal = OutgoingEvent.json(["message": "not authorized for this conversation"])
                sessions.send([SocketIOPacket(.connectError, namespace: packet.namespace, data: refusal).message], to: sid)
            }
        case .disconnect:
            sessions.leave(sid, namespace: packet.namespace)
        default:
            break
        }
    }

    /// The conversation `namespace` names, if `token` signs in a member of it; without a token,
    /// under `--socket-io-unauthenticated`, a public channel or a DM the name alone finds.
    private func admit(_ namespace: String, token: String?) async -> SocketIOSessions.Joined? {
        let (prefix, event): (String, String) = namespace.hasPrefix("/ws-channel-") ? ("/ws-channel-", "channel") : ("/ws-dm-", "dm")
        guard namespace.hasPrefix(prefix) else { return nil }
        let userId: Int64?
        if let token {
            guard let caller = try? await appSessions.account(authorization: token).user else { return nil }
            userId = caller.id
        } else {
            guard sessions.settings.unauthenticated else { return nil }
            userId = nil
        }
        let publicId = String(namespace.dropFirst(prefix.count))
        return try? await database.queryOffLoop { tx -> SocketIOSessions.Joined? in
            guard publicId.count <= 64, let roomId = try tx.publicIds.id(of: publicId, in: .rooms), let room = try tx.rooms.room(id: roomId),
                  room.kind == (event == "channel" ? .channel : .dm) else { return nil }
            if let userId {
                guard try tx.rooms.isMember(roomId: roomId, userId: userId) else { return nil }
            } else if room.isPrivate {
                return nil
            }
            return SocketIOSessions.Joined(roomId: roomId, userId: userId, event: event)
        }
    }

    /// Engine.IO's refusal of a request it cannot take (another protocol, another transport).
    private static func check(_ query: FlatDictionary<Substring, Substring>) -> Response? {
        guard query["EIO"] == "4" else { return failure(5, "Unsupported protocol version") }
        guard query["transport"] == "polling" else { return failure(0, "Transport unknown") }
        return nil
    }

    private static func text(_ body: String) -> Response {
        Response(status: .ok, headers: [.contentType: "text/plain; charset=UTF-8", .cacheControl: "no-store"],
                 body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    /// Engine.IO's error answer: `400 {"code", "message"}`.
    private static func failure(_ code: Int, _ message: String) -> Response {
        Response(status: .badRequest, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                 body: .init(byteBuffer: ByteBuffer(string: "{\"code\":\(code),\"message\":\"\(message)\"}")))
    }
}
