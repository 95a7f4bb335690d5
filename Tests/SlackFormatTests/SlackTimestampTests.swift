import Foundation
import Testing
@testable import SlackFormat

@Suite("Slack timestamps")
struct SlackTimestampTests {
    @Test("read and written to the microsecond, ordered exactly")
    func readWrite() throws {
        let stamp = try #require(SlackTimestamp("1709542800.000100"))
        #expect(stamp.microseconds == 1_709_542_800_000_100)
        #expect(stamp.text == "1709542800.000100")
        #expect(SlackTimestamp("1709542800.5")?.text == "1709542800.500000")
        #expect(SlackTimestamp("1709542800")?.text == "1709542800.000000")
        #expect(stamp.next.text == "1709542800.000101")
        #expect(stamp < stamp.next)
        #expect(SlackTimestamp(Date(timeIntervalSince1970: 1_709_542_800.25)).text == "1709542800.250000")
        for bad in ["", "x", "1.2.3", "-5.000001", "12.1234567", "12.", "12.a"] {
            #expect(SlackTimestamp(bad) == nil, "\(bad)")
        }
    }
}
