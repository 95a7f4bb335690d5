import Foundation
import Logging
import ServiceLifecycle

/// Hourly chores: deletes events past the retention window, expired sessions and spent reset
/// links, and files no message refers to. Nodes sharing a database take turns: a node whose
/// round finds another node sweeping skips it.
struct Housekeeper: Service {
    let database: AppDatabase
    let events: EventLog
    let sessions: SessionStore
    let files: FileService
    /// How long events are kept for replay (`--event-retention`).
    let retention: TimeInterval
    let interval: Duration
    let logger: Logger

    func run() async throws {
        // Shutdown cancels the sleep; that is the normal way out, not a failure.
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await sweep()
                try await Task.sleep(for: interval)
            }
        }
    }

    /// One round; false when another node was sweeping and this one left it to it.
    @discardableResult
    func sweep() async -> Bool {
        do {
            let swept = try await database.onOneNode("wsxsweep") {
                (try await events.prune(olderThan: retention), try await sessions.pruneExpired(), try await files.collectGarbage())
            }
            guard let (events, sessions, files) = swept else {
                logger.debug("housekeeping left to the node sweeping now")
                return false
            }
            if events + sessions + files > 0 {
                logger.info("housekeeping", metadata: ["events_pruned": "\(events)", "sessions_pruned": "\(sessions)",
                                                       "files_removed": "\(files)"])
            }
        } catch {
            logger.error("housekeeping failed", metadata: ["error": "\(String(reflecting: error))"])
        }
        return true
    }
}
