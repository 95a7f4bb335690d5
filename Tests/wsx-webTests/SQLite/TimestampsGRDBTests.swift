import Foundation
import GRDB
import Testing
@testable import wsx_web

/// `Timestamps.database` against GRDB's own encoding of a `Date`: SQLite's own test (the text
/// the SQLite store writes must be the text GRDB writes and reads back).
@Suite("Timestamps: GRDB's text", .timeLimit(.minutes(5)))
struct TimestampsGRDBTests {
    @Test("database times are the text GRDB stores for the same Date, to the millisecond")
    func matchGRDB() {
        var generator = SystemRandomNumberGenerator()
        var moments = (0..<5_000).map { _ in Date(timeIntervalSince1970: Double.random(in: -2e9...4.2e9, using: &generator)) }
        moments += [0, -0.0005, 0.0005, 0.999, 0.9999, -1, 951_782_399.9995, 1_795_000_000.123, -1_987_160_664.4185, -660_649_745.2105].map { Date(timeIntervalSince1970: $0) }
        moments += (0..<1_000).map { _ in Date() + Double.random(in: 0..<1, using: &generator) }
        var failures = 0
        for moment in moments where failures < 3 {
            let expected = String.fromDatabaseValue(moment.databaseValue)
            if Timestamps.database(moment) != expected {
                failures += 1
                Issue.record("at \(moment.timeIntervalSince1970): \(Timestamps.database(moment)) instead of \(expected ?? "nil")")
            }
        }
    }
}
