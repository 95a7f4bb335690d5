import NIOCore
import NIOPosix

/// Runs the server's Swift tasks (route handlers, middleware) on the same NIO event loops that
/// read and write its sockets, instead of on libdispatch's global pool.
///
/// Without it every request crossed threads twice: the loop handed the request to a pool thread,
/// and the handler handed the response back by waking the loop's thread (an eventfd write). On two
/// cores, two loop threads and two pool threads took turns, and a waking loop often preempted the
/// handler that woke it: a rendered channel page spent 315 µs of CPU, 6.96 ms p99 at 16 clients;
/// with the handler on its connection's loop, 241 µs and 4.17 ms (same run, alternating builds).
///
/// This is safe here because no task blocks waiting for another task to run: database reads are
/// synchronous and never wait for the writer (WAL, `AppDatabase.read`), writes await GRDB's own
/// queue, bcrypt runs on `NIOThreadPool` and thumbnails on a dispatch queue. Work that could block
/// for long must keep going off the loops the same way.
enum TasksOnEventLoops {
    /// Installs `MultiThreadedEventLoopGroup.singleton`, the group Hummingbird serves on, as Swift
    /// concurrency's global executor. Call once per process, before the server starts; returns
    /// false where the runtime offers no hook (tasks then stay on the global pool, which works,
    /// only slower).
    @discardableResult
    static func install() -> Bool {
        NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
    }
}
