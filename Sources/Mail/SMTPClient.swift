import Foundation
import NIOCore
import NIOExtras
import NIOPosix
import NIOSSL
import Synchronization

/// Hands messages to an SMTP server (RFC 5321), one connection per message.
///
/// Over `smtp://` it upgrades with STARTTLS whenever the server offers it, and refuses to log in
/// over a connection that stayed plain; a local relay without TLS or login (`smtp://127.0.0.1:25`)
/// works as it is. `smtps://` speaks TLS from the first byte. Certificates are verified against
/// the system's authorities, or only `trustedCAFile`'s when set.
public struct SMTPClient: Sendable {
    public let settings: SMTPSettings
    let group: any EventLoopGroup

    public init(settings: SMTPSettings, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.settings = settings
        self.group = group
    }

    /// Sends `message` (a whole RFC 5322 message, CRLF line ends) from `sender` to `recipients`.
    public func send(_ message: String, from sender: String, to recipients: [String]) async throws {
        let tls = try makeTLSContext()
        let settings = self.settings
        let serverName = Self.serverName(settings.host)
        let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        do {
            channel = try await ClientBootstrap(group: group)
                .connectTimeout(.nanoseconds(Int64(settings.connectTimeout / .nanoseconds(1))))
                .connect(host: settings.host, port: settings.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if settings.security == .implicitTLS {
                            try channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: tls, serverHostname: serverName))
                        }
                        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineBasedFrameDecoder()))
                        return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw SMTPError.unreachable("\(settings.host):\(settings.port): \(error)")
        }
        let raw = channel.channel
        try await channel.executeThenClose { inbound, outbound in
            var talk = Conversation(lines: inbound.makeAsyncIterator(), outbound: outbound, channel: raw,
                                    stepTimeout: .nanoseconds(Int64(settings.stepTimeout / .nanoseconds(1))))
            _ = try await talk.reply(expecting: [220], step: "the greeting")
            var features = try await talk.command("EHLO \(settings.heloName)", expecting: [250])
            var secure = settings.security == .implicitTLS
            if !secure, features.contains(where: { $0.uppercased() == "STARTTLS" }) {
                _ = try await talk.command("STARTTLS", expecting: [220])
                try await raw.eventLoop.submit {
                    try raw.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: tls, serverHostname: serverName),
                                                               position: .first)
                }.get()
                secure = true
                features = try await talk.command("EHLO \(settings.heloName)", expecting: [250])
            }
            if let user = settings.username, let password = settings.password {
                guard secure else { throw SMTPError.credentialsWithoutTLS }
                let methods = features.first { $0.uppercased().hasPrefix("AUTH") }?.uppercased().split(separator: " ").dropFirst() ?? []
                if methods.contains("PLAIN") {
                    let credentials = Data("\0\(user)\0\(password)".utf8).base64EncodedString()
                    _ = try await talk.command("AUTH PLAIN \(credentials)", expecting: [235], shown: "AUTH PLAIN")
                } else if methods.contains("LOGIN") {
                    _ = try await talk.command("AUTH LOGIN", expecting: [334])
                    _ = try await talk.command(Data(user.utf8).base64EncodedString(), expecting: [334], shown: "AUTH LOGIN")
                    _ = try await talk.command(Data(password.utf8).base64EncodedString(), expecting: [235], shown: "AUTH LOGIN")
                } else {
                    throw SMTPError.noLoginMethod
                }
            }
            _ = try await talk.command("MAIL FROM:<\(sender)>", expecting: [250], shown: "MAIL FROM")
            for recipient in recipients {
                _ = try await talk.command("RCPT TO:<\(recipient)>", expecting: [250, 251], shown: "RCPT TO")
            }
            _ = try await talk.command("DATA", expecting: [354])
            _ = try await talk.command(Self.dotStuffed(message) + ".", expecting: [250], shown: "DATA")
            _ = try? await talk.command("QUIT", expecting: [221])
        }
    }

    /// Lines that begin with a dot get another (RFC 5321 4.5.2), so none ends the data early.
    static func dotStuffed(_ message: String) -> String {
        var text = message.hasSuffix("\r\n") ? message : message + "\r\n"
        if text.hasPrefix(".") { text = "." + text }
        return text.replacingOccurrences(of: "\r\n.", with: "\r\n..")
    }

    /// The name for SNI and certificate checks: none for an address literal.
    static func serverName(_ host: String) -> String? {
        if host.contains(":") || host.split(separator: ".").allSatisfy({ Int($0) != nil }) { return nil }
        return host
    }

    private func makeTLSContext() throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeClientConfiguration()
        if let file = settings.trustedCAFile { configuration.trustRoots = .file(file) }
        do {
            return try NIOSSLContext(configuration: configuration)
        } catch {
            throw SMTPError.tls("\(error)")
        }
    }
}

/// One side of an SMTP exchange: commands out, replies (perhaps of several lines) in, each step
/// (a command and its reply) within `stepTimeout`, after which the connection is closed and the
/// step reported as timed out.
private struct Conversation {
    var lines: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    let channel: any Channel
    let stepTimeout: TimeAmount

    /// Sends `line`, then reads the reply; answers the reply's lines after the first (EHLO's
    /// features). `shown` names the step in errors instead of the line (which may hold secrets).
    mutating func command(_ line: String, expecting codes: Set<Int>, shown: String? = nil) async throws -> [String] {
        let step = shown ?? line
        return try await timed(step) { talk in
            try await talk.outbound.write(ByteBuffer(string: line + "\r\n"))
            return try await talk.read(expecting: codes, step: step)
        }
    }

    mutating func reply(expecting codes: Set<Int>, step: String) async throws -> [String] {
        try await timed(step) { talk in try await talk.read(expecting: codes, step: step) }
    }

    /// Runs one step; past `stepTimeout` the connection is closed, which ends the step's read or
    /// write, and the step is reported as timed out rather than as a closed connection.
    private mutating func timed(_ step: String, _ body: (inout Conversation) async throws -> [String]) async throws -> [String] {
        let expired = Expiry()
        let channel = self.channel
        let timer = channel.eventLoop.scheduleTask(in: stepTimeout) {
            expired.flag.store(true, ordering: .relaxed)
            channel.close(promise: nil)
        }
        defer { timer.cancel() }
        do {
            return try await body(&self)
        } catch let error as SMTPError {
            if expired.flag.load(ordering: .relaxed) { throw SMTPError.timedOut(step: step) }
            throw error
        } catch {
            if expired.flag.load(ordering: .relaxed) { throw SMTPError.timedOut(step: step) }
            if error is NIOSSLError { throw SMTPError.tls("\(error)") }
            throw SMTPError.connectionClosed(step: step)
        }
    }

    private final class Expiry: Sendable {
        let flag = Atomic<Bool>(false)
    }

    private mutating func read(expecting codes: Set<Int>, step: String) async throws -> [String] {
        var texts: [String] = []
        while true {
            guard let buffer = try await lines.next() else { throw SMTPError.connectionClosed(step: step) }
            let line = String(buffer: buffer)
            guard line.utf8.count >= 3, let code = Int(line.prefix(3)) else { throw SMTPError.refused(step: step, code: 0, text: line) }
            texts.append(String(line.dropFirst(4)))
            if line.dropFirst(3).first == "-" { continue }
            guard codes.contains(code) else { throw SMTPError.refused(step: step, code: code, text: texts.joined(separator: " ")) }
            return Array(texts.dropFirst())
        }
    }
}
