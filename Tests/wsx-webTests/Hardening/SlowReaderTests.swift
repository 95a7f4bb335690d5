import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Testing
import Uploads
@testable import wsx_web

/// Class: a client that asks and never reads. Its answers wait `--write-timeout` at most, then
/// the connection closes; requests it pipelines behind an answer still on its way out are not
/// read until that answer is on the socket; and IPv6 clients are counted per /64.
@Suite("Clients that never read", .serialized, .timeLimit(.minutes(5)))
struct SlowReaderTests {
    /// A loopback connection with a tiny receive buffer, read only when the test says so.
    final class StubbornClient {
        let descriptor: Int32

        init(port: Int) throws {
            descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var size: Int32 = 2048
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        }

        func send(_ text: String) {
            let bytes = Array(text.utf8)
            _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        }

        /// Reads until the server closes (true) or nothing comes for `quiet` (false); answers the
        /// bytes read too.
        func drain(quiet: TimeInterval = 1) -> (closed: Bool, bytes: Int) {
            var wait = timeval(tv_sec: Int(quiet), tv_usec: Int((quiet - Double(Int(quiet))) * 1e6))
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
            var buffer = [UInt8](repeating: 0, count: 65_536)
            var total = 0
            while true {
                let count = read(descriptor, &buffer, buffer.count)
                if count > 0 { total += count; continue }
                if count == 0 { return (true, total) }
                if errno == ECONNRESET { return (true, total) }
                return (false, total)
            }
        }

        deinit { close(descriptor) }
    }

    @Test("150 pipelined requests never read: the connection is closed at --write-timeout, and everyone else is served",
          .timeLimit(.minutes(2)))
    func writeTimeout() async throws {
        try await TestApp { $0.connections.writeTimeout = .seconds(2) }.run(.live) { app in
            let port = app.client.port!
            let login = String(buffer: try await app.client.execute(uri: "/login", method: .get).body)
            let css = try #require(login.firstMatch(of: /\/static\/app\.css\?v=[^"]+/)?.0)
            let client = try StubbornClient(port: port)
            client.send(String(repeating: "GET \(css) HTTP/1.1\r\nHost: wsx\r\n\r\n", count: 150))
            try await Task.sleep(for: .seconds(5))
            // Everyone else is served meanwhile.
            #expect(try await RawClient.askingHealth(port: port).waitFor("ok\n", within: .seconds(5)))
            let (closed, bytes) = client.drain()
            #expect(closed, "the connection was still open after twice the write timeout")
            // It got far fewer than the 150 answers it asked for.
            let one = try await app.client.execute(uri: String(css), method: .get).body.readableBytes
            #expect(bytes < 75 * one, "\(bytes) bytes for answers of \(one)")
        }
    }

    @Test("the socket is not asked for more while an answer is on its way out; once it is on the socket, reading goes on")
    func readsHeldUntilFlushed() throws {
        let channel = EmbeddedChannel()
        let watch = ConnectionWatch(rules: ConnectionRules(limits: ConnectionLimits(), logger: Logger(label: "test")))
        let reads = ReadCounter()
        try channel.pipeline.syncOperations.addHandler(reads)
        try channel.pipeline.syncOperations.addHandler(RawBytesGuard(watch: watch, addresses: nil))
        channel.pipeline.read()
        #expect(reads.count == 1, "an idle connection reads")
        let head = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/static/app.css")
        _ = watch.read(.head(head))
        _ = watch.read(.end(nil))
        channel.pipeline.read()
        #expect(reads.count == 1, "the next request was read while the answer had not left")
        _ = watch.writing(.end(nil))
        channel.pipeline.read()
        #expect(reads.count == 1, "written is not flushed")
        watch.responseFlushed()
        #expect(reads.count == 2, "the held read went on once the answer was on the socket")
        // A request with a body is read on while it comes, whatever is in flight.
        _ = watch.read(.head(head))
        channel.pipeline.read()
        #expect(reads.count == 3)
        // An event stream reads on: its client's end must be seen.
        _ = watch.read(.end(nil))
        channel.pipeline.read()
        #expect(reads.count == 3)
        watch.becameStream()
        #expect(reads.count == 4)
        channel.pipeline.read()
        #expect(reads.count == 5)
        _ = try? channel.finish()
    }

    /// Counts the reads that reach the socket.
    final class ReadCounter: ChannelOutboundHandler {
        typealias OutboundIn = Any
        private(set) var count = 0
        func read(context: ChannelHandlerContext) {
            count += 1
            context.read()
        }
    }

    @Test("answers pipelined behind one the client was slow to take all come once it reads",
          .timeLimit(.minutes(2)))
    func pipelinedRequestsWait() async throws {
        try await TestApp { config in
            config.uploads.maximumFileBytes = 16 << 20
            config.connections.writeTimeout = .seconds(60)
        }.run(.live) { app in
            let (a, _, wid, general) = try await MessagingTests.team(app)
            let big = Data("%PDF-1.4\n".utf8) + Data(repeating: 0x20, count: 12 << 20)
            let posted = try await a.postMultipart("/w/\(wid)/c/\(general)/messages", [("content", "큰 파일")],
                                                   files: [.init(filename: "big.pdf", data: big, contentType: "application/pdf")])
            #expect(posted.status == .seeOther)
            let fid = try await app.count("SELECT MAX(id) FROM files")
            let path = "/files/\(fid)/big.pdf"
            let client = try StubbornClient(port: app.client.port!)
            let request = "GET \(path) HTTP/1.1\r\nHost: wsx\r\nCookie: \(a.cookieHeader)\r\n\r\n"
            client.send(request)
            try await Task.sleep(for: .seconds(1))
            // Sent after the first answer began and stalled: not read while it waits.
            client.send(request + request)
            try await Task.sleep(for: .seconds(2))
            let answered = { app.logs.all.filter { $0.contains("route=/files/{fid}/{name}") }.count }
            #expect(answered() == 1)
            // Once the client reads, every answer comes, one after another (a quiet of 8 s: with
            // the other suites running on two cores, the next answer once took longer than 3 s).
            let (_, bytes) = client.drain(quiet: 8)
            #expect(bytes > 3 * big.count)
            #expect(answered() == 3)
        }
    }

    @Test("IPv6 clients are counted per /64; IPv4 and IPv4-mapped addresses as they are")
    func addressBuckets() {
        #expect(AddressBucket.key("2001:db8:1:2:aaaa:bbbb:cccc:dddd") == "2001:db8:1:2::/64")
        #expect(AddressBucket.key("2001:0db8:0001:0002::1") == "2001:db8:1:2::/64")
        #expect(AddressBucket.key("2001:db8:1:3::1") == "2001:db8:1:3::/64")
        #expect(AddressBucket.key("::ffff:192.0.2.7") == "192.0.2.7")
        #expect(AddressBucket.key("192.0.2.7") == "192.0.2.7")
        let counts = AddressCounts(limit: 2)
        #expect(counts.admit(AddressBucket.key("2001:db8::1")) && counts.admit(AddressBucket.key("2001:db8::2")))
        #expect(!counts.admit(AddressBucket.key("2001:db8::ffff:1")), "a third address of the same /64 is the same client")
        #expect(counts.admit(AddressBucket.key("2001:db8:0:1::1")))
    }
}
