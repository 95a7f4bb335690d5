import Testing
@testable import wsx_web

/// Socket.IO v5 and Engine.IO v4 packets as the apps' library writes and reads them.
@Suite("Socket.IO packets", .timeLimit(.minutes(5)))
struct SocketIOPacketTests {
    @Test("a namespace connect with its auth, a disconnect, the main namespace, and what is not a packet")
    func parsing() throws {
        let connect = try #require(SocketIOPacket(parsing: #"0/ws-channel-abc,{"token":"t"}"#))
        #expect(connect == SocketIOPacket(.connect, namespace: "/ws-channel-abc", data: #"{"token":"t"}"#))
        #expect(SocketIOPacket(parsing: "1/ws-dm-r,") == SocketIOPacket(.disconnect, namespace: "/ws-dm-r"))
        #expect(SocketIOPacket(parsing: "0") == SocketIOPacket(.connect, namespace: "/"))
        #expect(SocketIOPacket(parsing: #"2/ns,12["hi"]"#) == SocketIOPacket(.event, namespace: "/ns", ackId: 12, data: #"["hi"]"#))
        #expect(SocketIOPacket(parsing: "x") == nil && SocketIOPacket(parsing: "") == nil)
    }

    @Test("an event to a namespace is an Engine.IO message; a polling body separates packets with 0x1E")
    func writing() {
        let event = SocketIOPacket.event("channel", json: #"{"content":"안녕"}"#, namespace: "/ws-channel-abc")
        #expect(event.message == #"42/ws-channel-abc,["channel",{"content":"안녕"}]"#)
        #expect(SocketIOPacket(.connect, namespace: "/", data: #"{"sid":"s"}"#).message == #"40{"sid":"s"}"#)
        #expect(EngineIO.payload(["2", "40"]) == "2\u{1e}40")
        #expect(EngineIO.packets(in: "3\u{1e}40/ns,{}") == ["3", "40/ns,{}"])
    }
}
