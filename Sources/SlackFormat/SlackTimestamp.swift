import Foundation

/// A Slack message's `ts`: seconds since 1970 with six digits of microseconds, as text
/// (`"1709542800.000100"`). It is the message's time and, within its conversation, its id;
/// replies name their thread by their root's `ts`. Kept as whole microseconds, so ordering and
/// equality are exact (a `Double` cannot hold every microsecond of today).
public struct SlackTimestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let microseconds: Int64

    public init(microseconds: Int64) {
        self.microseconds = microseconds
    }

    /// Reads `"1709542800.000100"`, `"1709542800.0001"` (fewer digits are tenths, hundredths…),
    /// or `"1709542800"`; nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let seconds = Int64(parts[0]), seconds >= 0, seconds < 100_000_000_000 else {
            return nil
        }
        var fraction: Int64 = 0
        if parts.count == 2 {
            let digits = parts[1]
            guard !digits.isEmpty, digits.count <= 6, digits.allSatisfy(\.isASCII), let value = Int64(digits) else { return nil }
            fraction = value * Self.power(6 - digits.count)
        }
        microseconds = seconds * 1_000_000 + fraction
    }

    /// The moment `date` is, to the microsecond.
    public init(_ date: Date) {
        microseconds = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
    }

    /// The text Slack writes: seconds, a dot, six digits.
    public var text: String {
        let fraction = String(microseconds % 1_000_000)
        return "\(microseconds / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction
    }

    public var description: String { text }

    public var date: Date { Date(timeIntervalSince1970: Double(microseconds) / 1_000_000) }

    /// The next microsecond: a stamp no message written at the same moment has yet.
    public var next: SlackTimestamp { SlackTimestamp(microseconds: microseconds + 1) }

    public static func < (lhs: SlackTimestamp, rhs: SlackTimestamp) -> Bool {
        lhs.microseconds < rhs.microseconds
    }

    private static func power(_ exponent: Int) -> Int64 {
        (0..<exponent).reduce(1) { result, _ in result * 10 }
    }
}
