import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import NIOWebSocket

/// The WebSocket transport of the apps' Socket.IO sessions (Engine.IO v4): a polling session
/// upgrades (`2probe` → `3probe`, then `5`), or a client opens on a WebSocket from the start
/// and gets the open packet first. Then one packet a frame each way: the writer takes the
/// session's packets as a poll would (pings included), the reader hands the app's packets to
/// the same `receive` as an HTTP post.
extension SocketIOController {
    /// The handler of a WebSocket handshake this server takes: `/socket.io/?EIO=4&transport=websocket`,
    /// with the `sid` of a polling session not yet upgraded, or none. Nil for anything else
    /// (the handshake is then refused with a 400).
    func webSocketHandler(for head: HTTPRequest) -> WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>? {
        guard let path = head.path else { return nil }
        let uri = URI(path)
        guard uri.path == "/socket.io/" || uri.path == "/socket.io" else { return nil }
        let query = uri.queryParameters
        guard query["EIO"] == "4", query["transport"] == "websocket" else { return nil }
        let sid = query["sid"].map(String.init)
        if let sid, !sessions.exists(sid) || sessions.isUpgraded(sid) { return nil }
        let token = query["token"].map(String.init) ?? head.headerFields[.authorization]
        return { inbound, outbound, _ in await serve(sid: sid, token: token, inbound, outbound) }
    }

    /// How the WebSocket is set up: frames as large as a poll's body, and no WebSocket-level
    /// pings (Engine.IO pings on its own).
    var webSocketConfiguration: WebSocketServerConfiguration {
        WebSocketServerConfiguration(maxFrameSize: sessions.settings.maxPayload, autoPing: .disabled)
    }

    private func serve(sid: String?, token: String?, _ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter) async {
        var messages = inbound.makeAsyncIterator()
        let maxSize = sessions.settings.maxPayload
        // A socket that does not finish the upgrade within the ping timeout is closed.
        let timeout = sessions.settings.pingTimeout
        let watchdog = Task {
            try await Task.sleep(for: timeout)
            try await outbound.close(.policyViolation, reason: "upgrade not completed")
        }
        let session: String
        if let sid {
            guard case .text("2probe")? = try? await messages.nextMessage(maxSize: maxSize) else { return watchdog.cancel() }
            sessions.probe(sid)
            guard (try? await outbound.write(.text("3probe"))) != nil,
                  case .text("5")? = try? await messages.nextMessage(maxSize: maxSize) else {
                sessions.endProbe(sid, upgraded: false)
                return watchdog.cancel()
            }
            sessions.endProbe(sid, upgraded: true)
            session = sid
        } else {
            let opened = sessions.open(token: token, onWebSocket: true)
            session = opened.sid
            guard (try? await outbound.write(.text(opened.packet))) != nil else {
                sessions.close(session)
                return watchdog.cancel()
            }
        }
        watchdog.cancel()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [sessions] in
                writing: while let packets = await sessions.poll(session) {
                    for packet in packets {
                        guard (try? await outbound.write(.text(packet))) != nil else { break writing }
                        if packet == "1" { break writing }
                    }
                }
                try? await outbound.close(.normalClosure, reason: nil)
            }
            while let message = try? await messages.nextMessage(maxSize: maxSize) {
                guard case .text(let packet) = message else { continue }
                await receive(packet, sid: session)
            }
            // The client went away: the writer, waiting on the session, gets its close.
            sessions.close(session)
        }
    }
}
