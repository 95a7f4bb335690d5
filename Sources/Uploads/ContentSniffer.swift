import CMagic
import Foundation

/// Decides what a file is from its bytes, with libmagic. The file's name and the client's
/// `Content-Type` are never consulted.
///
/// A `magic_t` is not thread-safe, so each sniffer owns one cookie behind a lock.
public final class ContentSniffer: @unchecked Sendable {
    /// How many leading bytes libmagic looks at; enough for every type wsx accepts.
    public static let sniffLength = 64 * 1024

    private let cookie: magic_t
    private let lock = NSLock()

    /// Opens libmagic with its default database.
    public init() throws {
        guard let cookie = magic_open(MAGIC_MIME_TYPE) else { throw SnifferError.unavailable("magic_open failed") }
        guard magic_load(cookie, nil) == 0 else {
            let reason = magic_error(cookie).map { String(cString: $0) } ?? "unknown"
            magic_close(cookie)
            throw SnifferError.unavailable("magic_load failed: \(reason)")
        }
        self.cookie = cookie
    }

    deinit { magic_close(cookie) }

    /// The MIME type of `bytes` (only the first `sniffLength` bytes are read), e.g. `image/png`.
    public func mimeType(of bytes: some DataProtocol) -> String {
        let head = Data(bytes.prefix(Self.sniffLength))
        return lock.withLock {
            head.withUnsafeBytes { raw in
                guard let result = magic_buffer(cookie, raw.baseAddress, raw.count) else {
                    return "application/octet-stream"
                }
                return String(cString: result)
            }
        }
    }
}

/// Why a sniffer could not start.
public enum SnifferError: Error, CustomStringConvertible {
    case unavailable(String)

    public var description: String {
        switch self {
        case .unavailable(let reason): "libmagic is unavailable: \(reason)"
        }
    }
}
