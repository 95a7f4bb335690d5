import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A program run by the tests (the `wsx-web` binary, `tar`, `unshare`), started with
/// `posix_spawn` rather than Foundation's `Process`: on Linux, `Process.run()` reads past a
/// buffer while listing `/proc/self/fd` and crashes now and then in a process with many open
/// descriptors, as this suite's is (swift-corelibs-foundation PR #5472, seen here in
/// `BinaryTests`). Every descriptor of the test process is closed in the child
/// (`closefrom(3)`), standard input is `/dev/null`, and output is collected as it comes by a
/// thread per pipe, so a chatty child never stalls on a full pipe.
final class ChildProcess: @unchecked Sendable {
    let processIdentifier: pid_t
    private let stdout = LogBuffer()
    private let stderr = LogBuffer()
    private let readers = DispatchGroup()
    private let status = Mutex<Int32?>(nil)

    /// How the child's standard error is kept: with standard output, apart, or not at all.
    enum ErrorOutput {
        case merged, separate, discarded
    }

    init(_ executable: String, _ arguments: [String], in directory: URL? = nil, environment: [String: String]? = nil,
         errors: ErrorOutput = .merged) throws {
        var outPipe: [Int32] = [0, 0], errPipe: [Int32] = [0, 0]
        guard GNU.pipe2(&outPipe, O_CLOEXEC) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        if errors == .separate {
            guard GNU.pipe2(&errPipe, O_CLOEXEC) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        switch errors {
        case .merged: posix_spawn_file_actions_adddup2(&actions, outPipe[1], 2)
        case .separate: posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        case .discarded: posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        _ = GNU.closeFrom(&actions, 3)
        if let directory { _ = GNU.changeDirectory(&actions, directory.path) }
        let environment = environment ?? ProcessInfo.processInfo.environment
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        close(outPipe[1])
        if errors == .separate { close(errPipe[1]) }
        guard spawned == 0 else {
            close(outPipe[0])
            if errors == .separate { close(errPipe[0]) }
            throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO)
        }
        processIdentifier = pid
        collect(outPipe[0], into: stdout)
        if errors == .separate { collect(errPipe[0], into: stderr) }
    }

    /// Reads `descriptor` to its end on a thread of its own.
    private func collect(_ descriptor: Int32, into buffer: LogBuffer) {
        readers.enter()
        let group = readers
        Thread.detachNewThread {
            var bytes = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = read(descriptor, &bytes, bytes.count)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                buffer.text.withLock { $0 += String(decoding: bytes.prefix(count), as: UTF8.self) }
            }
            close(descriptor)
            group.leave()
        }
    }

    /// What the child wrote so far (standard error too, unless kept apart).
    var output: String { stdout.text.withLock { $0 } }
    var errorOutput: String { stderr.text.withLock { $0 } }

    /// Whether the child is still running.
    var isRunning: Bool {
        if status.withLock({ $0 }) != nil { return false }
        var raw: Int32 = 0
        let done = waitpid(processIdentifier, &raw, WNOHANG)
        guard done == processIdentifier else { return done == 0 }
        record(raw)
        return false
    }

    /// Asks the child to stop (SIGTERM).
    func terminate() {
        if isRunning { kill(processIdentifier, SIGTERM) }
    }

    /// Waits for the child to end and for its output to be read; answers its exit status (a
    /// signal's number plus 128 when a signal ended it).
    @discardableResult
    func waitUntilExit() -> Int32 {
        if let known = status.withLock({ $0 }) {
            readers.wait()
            return known
        }
        var raw: Int32 = 0
        while waitpid(processIdentifier, &raw, 0) < 0, errno == EINTR {}
        record(raw)
        readers.wait()
        return status.withLock { $0 } ?? -1
    }

    /// The same, without holding a thread of the cooperative pool.
    func exitStatus() async -> Int32 {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: self.waitUntilExit()) }
        }
    }

    var terminationStatus: Int32 { status.withLock { $0 } ?? -1 }

    private func record(_ raw: Int32) {
        let exited = raw & 0x7f == 0
        let code = exited ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
        status.withLock { if $0 == nil { $0 = code } }
    }
}

/// glibc functions Swift's Glibc module does not show (they need `_GNU_SOURCE`), looked up by
/// name and called with the C calling convention. glibc 2.34 and later have all three.
private enum GNU {
    typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    typealias ChangeDirectory = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    static let pipe2: Pipe2 = unsafeBitCast(symbol("pipe2"), to: Pipe2.self)
    static let closeFrom: CloseFrom = unsafeBitCast(symbol("posix_spawn_file_actions_addclosefrom_np"), to: CloseFrom.self)
    static let changeDirectory: ChangeDirectory = unsafeBitCast(symbol("posix_spawn_file_actions_addchdir_np"), to: ChangeDirectory.self)

    private static func symbol(_ name: String) -> UnsafeMutableRawPointer {
        guard let address = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { fatalError("glibc has no \(name)") }
        return address
    }
}
