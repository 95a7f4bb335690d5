import Foundation
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
#if canImport(Glibc)
import Glibc
#endif

/// How a command that wrote to the database of a running server (`wsx-web import slack`,
/// `coins grant`, `user create`) tells that server, which otherwise learns of writes only from
/// its own commits (and, for caches of reads, `OtherConnections` before each signed-in request):
/// the real-time hub, which
/// keeps who is in which room in memory, would not deliver messages of rooms it never saw
/// made, and the events the command queued (`OutsideEvents`) would wait.
///
/// The server listens on a Unix socket in its data folder (`wsx.sock`, the server user's alone:
/// files there are made 0600); a command connects and writes `changed`, the server forgets its
/// caches, reloads room memberships, relays the queued events and looks for queued mail, then
/// answers `ok`. Nothing listens when no server runs: the command is told so, and a server
/// starting later reads everything afresh and relays the queue anyway.
enum OutsideWrites {
    static let socketName = "wsx.sock"

    static func socketPath(dataDirectory: String) -> String {
        URL(fileURLWithPath: dataDirectory).appendingPathComponent(socketName).path
    }

    /// A Unix socket's path has room for 107 bytes.
    static func fits(_ path: String) -> Bool { path.utf8.count < 108 }

    /// Tells the server running on `dataDirectory`, if one is; true when it answered.
    static func tell(dataDirectory: String, timeout: Int = 60) -> Bool {
        let path = socketPath(dataDirectory: dataDirectory)
        guard fits(path) else { return false }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: Array(path.utf8) + [0])
        }
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else { return false }
        var wait = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        let request = Array("changed\n".utf8)
        guard write(descriptor, request, request.count) == request.count else { return false }
        var answer = [UInt8](repeating: 0, count: 16)
        let count = read(descriptor, &answer, answer.count)
        return count > 0 && String(decoding: answer.prefix(count), as: UTF8.self).hasPrefix("ok")
    }
}

/// The server's side of `OutsideWrites`: a background service listening on the data folder's
/// socket until the server stops.
struct OutsideWritesListener: Service {
    let dataDirectory: String
    let logger: Logger
    /// What the server does when told (forget caches, reload memberships, relay events, wake the mail).
    let onChange: @Sendable () async -> Void

    func run() async throws {
        let path = OutsideWrites.socketPath(dataDirectory: dataDirectory)
        guard OutsideWrites.fits(path) else {
            logger.notice("the data folder's path is too long for \(OutsideWrites.socketName): imports on a running server show after a restart")
            return
        }
        let server: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>
        do {
            server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            logger.notice("cannot listen on \(path) for writes by other commands", metadata: ["error": "\(error)"])
            return
        }
        // The server user's alone, whatever the process's file mode mask (connecting takes write access).
        chmod(path, 0o600)
        defer { unlink(path) }
        let onChange = self.onChange, logger = self.logger
        await cancelWhenGracefulShutdown {
            try? await withThrowingDiscardingTaskGroup { group in
                try await server.executeThenClose { connections in
                    for try await connection in connections {
                        group.addTask {
                            try? await connection.executeThenClose { input, output in
                                var received = ""
                                for try await buffer in input {
                                    received += String(buffer: buffer)
                                    if received.contains("\n") || received.utf8.count > 64 { break }
                                }
                                guard received.hasPrefix("changed") else { return }
                                logger.info("another command wrote to the database: caches and room memberships read afresh")
                                await onChange()
                                try await output.write(ByteBuffer(string: "ok\n"))
                            }
                        }
                    }
                }
            }
        }
    }
}
