import Foundation
import NIOCore
import NIOHTTP1

/// Errors that mean the client went away or broke off its own request (a connection closed in
/// the middle of a body, a malformed or truncated message), not that the server failed. They
/// are answered with a 400 nobody may read and logged as a notice, not as a server error with a
/// request id: a phone that loses its signal halfway through an upload is not an incident.
enum ClientDisconnects {
    static func explains(_ error: any Error) -> Bool {
        switch error {
        case is HTTPParserError:
            return true
        case let error as ChannelError:
            return [.ioOnClosedChannel, .alreadyClosed, .outputClosed, .inputClosed, .eof].contains(error)
        case let error as IOError:
            return [ECONNRESET, EPIPE, ECONNABORTED, ETIMEDOUT].contains(error.errnoCode)
        default:
            return false
        }
    }
}
