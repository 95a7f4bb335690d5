import Foundation
import Logging
import ServiceLifecycle

/// Hourly chores: deletes events past the retention window, expired sessions and spent reset links.
struct Housekeeper: Service {
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

    func sweep() async {
        do {
            let events = try await events.prune(olderThan: retention)
            let sessions = try await sessions.pruneExpired()
            let files = try await files.collectGarbage()
            if events + sessions + files > 0 {
                logger.info("housekeeping", metadata: ["events_pruned": "\(events)", "sessions_pruned": "\(sessions)",
                                                       "files_removed": "\(files)"])
            }
        } catch {
            logger.error("housekeeping failed", metadata: ["error": "\(String(reflecting: error))"])
        }
    }
}
