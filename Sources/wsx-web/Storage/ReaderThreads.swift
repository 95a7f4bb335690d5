import NIOCore
import NIOPosix
import ServiceLifecycle

/// Threads of their own for database reads that may take a while (those no cache answered), so
/// that a slow query never holds an event loop, which also carries hundreds of event streams and
/// every other request (route handlers run on the loops: `TasksOnEventLoops`).
///
/// As many threads as the pool has readers: more could only wait for a reader. A read handed here
/// runs synchronously on its thread (`AppDatabase.read`), never through GRDB's async `read`.
/// Runs as a background service so the threads end with the server; a read asked after that
/// runs on the caller's thread (`run(_:)`), or fails (`run(on:_:)`: an event loop must not block).
/// Event replay reads here too, never on NIO's shared pool, where host names are looked up.
final class ReaderThreads: Service, Sendable {
    private let pool: NIOThreadPool

    init(count: Int) {
        pool = NIOThreadPool(numberOfThreads: count)
        pool.start()
    }

    /// Runs `work` on one of the threads and answers its value.
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        do {
            return try await pool.runIfActive(work)
        } catch is NIOThreadPoolError.ThreadPoolInactive {
            return try work()
        }
    }

    /// Runs `work` on one of the threads, answering on `eventLoop` (a channel handler's read).
    /// After shutdown the future fails with `NIOThreadPoolError.ThreadPoolInactive`.
    func run<T: Sendable>(on eventLoop: any EventLoop, _ work: @escaping @Sendable () throws -> T) -> EventLoopFuture<T> {
        pool.runIfActive(eventLoop: eventLoop, work)
    }

    func run() async throws {
        try? await gracefulShutdown()
        try await shutDown()
    }

    /// Ends the threads; reads asked afterwards run on their callers' threads.
    func shutDown() async throws {
        try await pool.shutdownGracefully()
    }
}
