import Foundation
import GRDB
import Prometheus

/// Measures each write transaction on the writer's connection: SQLite reports every statement's
/// run time (its profile trace), and the times add up until the connection is out of its
/// transaction again, the commit included, when the sum is recorded.
///
/// Read connections are left alone. Statements outside a transaction count as writes of their own.
final class WriteTimer: @unchecked Sendable {
    // Touched only on the writer's queue, where SQLite calls back.
    private var spent: Int64 = 0
    private let histogram: DurationHistogram

    private init(_ histogram: DurationHistogram) {
        self.histogram = histogram
    }

    /// Starts timing `db`'s writes into `histogram`, unless `db` is read-only.
    static func watch(_ db: Database, into histogram: DurationHistogram) {
        guard !db.configuration.readonly else { return }
        let timer = WriteTimer(histogram)
        db.trace(options: .profile) { [unowned db] event in
            guard case .profile(_, let duration) = event else { return }
            timer.spent += Int64(duration * 1e9)
            if !db.isInsideTransaction {
                timer.histogram.recordNanoseconds(timer.spent)
                timer.spent = 0
            }
        }
    }
}
