import Foundation
import NIOPosix

/// NIO's shared thread pool (`NIOThreadPool.singleton`: host lookups, PostgreSQL's connection
/// lookups) kept busy, for tests of work that must not wait for it.
enum SharedThreads {
    /// `body`'s value, computed while more blocked tasks than the pool has threads hold it; nil
    /// when `limit` passed first. The holders are let go before the tasks are waited for, so
    /// work stuck behind them ends and the test fails instead of hanging.
    static func held<T: Sendable>(for limit: Duration = .seconds(30),
                                  _ body: @escaping @Sendable () async throws -> T) async throws -> T? {
        let gate = DispatchSemaphore(value: 0), holders = 64
        for _ in 0..<holders { NIOThreadPool.singleton.submit { _ in gate.wait() } }
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask { try await Task.sleep(for: limit); return nil }
            defer { group.cancelAll(); for _ in 0..<holders { gate.signal() } }
            return try await group.next()!
        }
    }
}
